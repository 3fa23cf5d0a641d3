#include "io/file_claim.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <utility>

namespace bouss {

namespace {

std::string read_holder(int fd) {
  char buf[256] = {};
  const ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
  std::string s = n > 0 ? std::string(buf, std::size_t(n)) : std::string();
  while (!s.empty() && (s.back() == '\n' || s.back() == '\0')) s.pop_back();
  return s.empty() ? "another process" : s;
}

std::string this_holder() {
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) != 0) std::strcpy(host, "this host");
  return "pid " + std::to_string(::getpid()) + " on " + host + "\n";
}

}  // namespace

std::optional<FileClaim> FileClaim::try_claim(const std::string& lock_path, std::string* holder) {
  std::error_code ec;
  const std::filesystem::path folder = std::filesystem::path(lock_path).parent_path();
  if (!folder.empty()) std::filesystem::create_directories(folder, ec);
  // A holder removes its lock file before it lets go, so a process that opened the file
  // just before the removal may lock a name that no longer exists: it checks, once it holds
  // the lock, that the path still names the file it locked, and tries again if not.
  for (int attempt = 0; attempt < 100; ++attempt) {
    const int fd = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (fd < 0)
      throw std::runtime_error("cannot create the lock file " + lock_path + ": " + std::strerror(errno));
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      const int err = errno;
      if (err == EWOULDBLOCK) {
        if (holder) *holder = read_holder(fd);
        ::close(fd);
        return std::nullopt;
      }
      ::close(fd);
      throw std::runtime_error("cannot lock " + lock_path + ": " + std::strerror(err));
    }
    struct stat held{}, named{};
    if (::fstat(fd, &held) == 0 && ::stat(lock_path.c_str(), &named) == 0 && held.st_dev == named.st_dev &&
        held.st_ino == named.st_ino) {
      const std::string me = this_holder();
      if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, me.data(), me.size(), 0) != ssize_t(me.size())) {
        // The claim holds without the note; a refused run then says "another process".
      }
      return FileClaim(lock_path, fd);
    }
    ::close(fd);  // the file was removed (or replaced) after we opened it
  }
  throw std::runtime_error("cannot lock " + lock_path + ": it keeps being removed and created again");
}

std::optional<std::string> FileClaim::holder(const std::string& lock_path) {
  const int fd = ::open(lock_path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::optional<std::string> who;
  if (::flock(fd, LOCK_SH | LOCK_NB) != 0) {
    if (errno == EWOULDBLOCK) who = read_holder(fd);
  } else {
    ::flock(fd, LOCK_UN);
  }
  ::close(fd);
  return who;
}

FileClaim::FileClaim(FileClaim&& other) noexcept : path_(std::move(other.path_)), fd_(std::exchange(other.fd_, -1)) {}

FileClaim& FileClaim::operator=(FileClaim&& other) noexcept {
  if (this != &other) {
    release();
    path_ = std::move(other.path_);
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

FileClaim::~FileClaim() { release(); }

void FileClaim::release() {
  if (fd_ < 0) return;
  ::unlink(path_.c_str());
  ::close(fd_);  // releases the lock
  fd_ = -1;
}

}  // namespace bouss
