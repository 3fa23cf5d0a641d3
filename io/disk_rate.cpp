#include "io/disk_rate.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <stdexcept>
#include <vector>

namespace bouss {

double disk_rate(const std::string& folder, double bytes) {
  namespace fs = std::filesystem;
  std::string named;  // empty: the file has no name
  int fd = -1;
#ifdef O_TMPFILE
  fd = ::open(folder.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
#endif
  if (fd < 0) {
    named = (fs::path(folder) / ("bouss_disk_rate." + std::to_string(::getpid()))).string();
    fd = ::open(named.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) throw std::runtime_error("cannot write in " + folder + " to measure the disk");
    ::unlink(named.c_str());  // open, it still takes the bytes; closed, it is gone
  }
  const std::size_t block = std::size_t(16) << 20;
  const std::vector<char> data(block, 1);
  const auto t0 = std::chrono::steady_clock::now();
  for (double left = bytes; left > 0; left -= double(block)) {
    const std::size_t n = std::size_t(std::min(left, double(block)));
    if (::write(fd, data.data(), n) != ssize_t(n)) {
      ::close(fd);
      throw std::runtime_error("writing in " + folder + " to measure the disk failed (a full disk?)");
    }
  }
  ::fsync(fd);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ::close(fd);
  return bytes / s;
}

}  // namespace bouss
