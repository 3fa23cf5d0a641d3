// A fresh folder under the system's temporary folder for one test, removed with all it holds:
// a tmpfs a test mounted at DIR/disk is unmounted first, and folders a test made read-only
// are made writable again.
#pragma once

#include <sys/mount.h>

#include <filesystem>
#include <random>
#include <sstream>
#include <string>

namespace bouss::test {

class ScratchDir {
 public:
  explicit ScratchDir(const std::string& tag = "test") {
    std::random_device rd;
    std::ostringstream os;
    os << "bouss_" << tag << "_" << std::hex << rd() << rd();
    path_ = std::filesystem::temp_directory_path() / os.str();
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() {
    namespace fs = std::filesystem;
    std::error_code ec;
    ::umount2((path_ / "disk").c_str(), MNT_DETACH);
    fs::permissions(path_, fs::perms::owner_all, fs::perm_options::add, ec);
    for (const auto& e : fs::recursive_directory_iterator(path_, ec))
      if (e.is_directory(ec)) fs::permissions(e.path(), fs::perms::owner_all, fs::perm_options::add, ec);
    fs::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  std::string file(const std::string& name) const { return (path_ / name).string(); }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace bouss::test
