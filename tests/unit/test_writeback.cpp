// io/writeback: the fsyncs it defers (MPI-IO's at each flush of a file every rank writes)
// start the file's writeback and return; every other descriptor's fsync goes to the system.
#include <fcntl.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <string>

#include "io/writeback.hpp"
#include "scratch_dir.hpp"

using namespace bouss;

namespace {
int open_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  EXPECT_GE(fd, 0) << path;
  return fd;
}
}  // namespace

TEST(Writeback, AnFsyncOfADeferredDescriptorStartsTheWritebackAndReturns) {
  test::ScratchDir dir("writeback");
  const std::string path = (dir.path() / "f.nc").string(), other = (dir.path() / "g.nc").string();
  const int fd = open_file(path), elsewhere = open_file(other);
  ASSERT_EQ(::write(fd, "data", 4), 4);
  {
    Writeback w(path);
    w.start();
    EXPECT_EQ(w.starts(), 1);
    EXPECT_EQ(::fsync(fd), 0);
    EXPECT_EQ(w.starts(), 1) << "not deferred yet: the system's fsync";
    w.defer_syncs({fd, elsewhere});  // `elsewhere` is another file's: never deferred
    EXPECT_EQ(::fsync(fd), 0);
    EXPECT_EQ(::fdatasync(fd), 0);
    EXPECT_EQ(w.starts(), 3);
    EXPECT_EQ(::fsync(elsewhere), 0);
    EXPECT_EQ(w.starts(), 3);
    // A deferred descriptor closed and its number reused for another file: that file's
    // fsync goes to the system.
    ::close(fd);
    const int reused = open_file(other);
    ASSERT_EQ(reused, fd);
    EXPECT_EQ(::fsync(reused), 0);
    EXPECT_EQ(w.starts(), 3);
    ::close(reused);
    const int again = open_file(path);
    ASSERT_EQ(again, fd);
    EXPECT_EQ(::fsync(again), 0);
    EXPECT_EQ(w.starts(), 4) << "the same file under the same number";
    w.end_deferral();
    EXPECT_EQ(::fsync(again), 0);
    EXPECT_EQ(w.starts(), 4);
    ::close(again);
  }
  // A bad descriptor's fsync still fails as the system's does.
  EXPECT_EQ(::fsync(-1), -1);
  ::close(elsewhere);
}
