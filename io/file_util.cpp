#include "io/file_util.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <stdexcept>

namespace bouss {

namespace fs = std::filesystem;

std::string partial_path(const std::string& path) { return path + "." + std::to_string(::getpid()) + ".partial"; }

std::string absolute_path(const std::string& path) {
  if (path.empty()) return path;
  std::error_code ec;
  const fs::path p = fs::absolute(path, ec);
  return ec ? path : p.lexically_normal().string();
}

PathKind path_kind(const std::string& path) {
  struct stat st{};
  if (::stat(path.c_str(), &st) != 0) return PathKind::missing;
  if (S_ISREG(st.st_mode)) return PathKind::regular;
  if (S_ISDIR(st.st_mode)) return PathKind::directory;
  return PathKind::other;
}

bool is_symlink(const std::string& path) {
  struct stat st{};
  return ::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode);
}

namespace {
std::string folder_of(const std::string& path) {
  const fs::path dir = fs::path(path).parent_path();
  return dir.empty() ? std::string(".") : dir.string();
}

void fsync_descriptor_of(const std::string& path, int flags, const char* what) {
  const int fd = ::open(path.c_str(), flags);
  if (fd < 0) throw std::runtime_error(std::string("cannot open ") + path + " to " + what + ": " + std::strerror(errno));
  const int rc = ::fsync(fd);
  const int err = errno;
  ::close(fd);
  // Some file systems cannot sync a folder (EINVAL); that is no failure of the data.
  if (rc != 0 && err != EINVAL && err != EROFS)
    throw std::runtime_error(std::string("cannot ") + what + " " + path + ": " + std::strerror(err));
}
}  // namespace

void fsync_file(const std::string& path) { fsync_descriptor_of(path, O_RDONLY, "flush"); }

void fsync_folder_of(const std::string& path) { fsync_descriptor_of(folder_of(path), O_RDONLY | O_DIRECTORY, "flush folder"); }

std::uintmax_t free_bytes(const std::string& path) {
  struct statvfs s{};
  if (::statvfs(folder_of(path).c_str(), &s) != 0) return UINTMAX_MAX;  // unknown: do not refuse
  return std::uintmax_t(s.f_bavail) * s.f_frsize;
}

void replace_file(const std::string& from, const std::string& to) {
  switch (path_kind(to)) {
    case PathKind::missing:
    case PathKind::regular: break;
    case PathKind::directory:
      throw std::runtime_error("cannot rename " + from + " to " + to + ": " + to + " is a folder");
    case PathKind::other:
      throw std::runtime_error("cannot rename " + from + " to " + to + ": " + to +
                               " is not a regular file (a device, pipe or socket is never replaced)");
  }
  if (std::rename(from.c_str(), to.c_str()) != 0)
    throw std::runtime_error("cannot rename " + from + " to " + to + ": " + std::strerror(errno));
  fsync_folder_of(to);
}

std::string format_bytes(double bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  int u = 0;
  while (bytes >= 1024 && u < 6) {
    bytes /= 1024;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : bytes < 10 ? "%.2f %s" : bytes < 100 ? "%.1f %s" : "%.0f %s",
                bytes, units[u]);
  return buf;
}

}  // namespace bouss
