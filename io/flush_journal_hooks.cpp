// pwrite, pread, pwritev, preadv and ftruncate of the C library, as libbouss defines them for
// the whole process: HDF5 (through NetCDF-4) writes its files with these (through MPI-IO for a
// file every rank writes), and a call on a descriptor
// that a FlushJournal holds goes to the journal (io/flush_journal.hpp); every other call goes
// to the system directly, as the C library's own would. Likewise fsync and fdatasync, which
// MPI-IO makes at each HDF5 flush: on a descriptor a Writeback defers, they start the file's
// writeback and return (io/writeback.hpp). The executable and the test suites
// link libbouss before the C library, so the dynamic linker binds HDF5's calls here.
//
// This unit includes no <unistd.h>, whose declarations of these functions (exception
// specifications, 64-bit redirections) would clash with the definitions.
#include <sys/syscall.h>
#include <sys/types.h>

#include "io/flush_journal_hooks.hpp"

extern "C" long syscall(long number, ...);

namespace {
// struct iovec's layout (the header that declares it declares pwritev and preadv too).
struct IoVec {
  void* base;
  size_t length;
};
// pwritev and preadv, a piece at a time through the journal's hooks when it holds `fd` (MPI-IO
// writes a parallel file with them), else the system call whole.
template <class Hook>
ssize_t vectored(int fd, const IoVec* iov, int count, long long offset, Hook hook, long number) {
  long r = 0;
  if (count > 0 && hook(fd, iov[0].base, iov[0].length, offset, &r)) {
    ssize_t total = r;
    if (r < 0 || size_t(r) < iov[0].length) return total;
    offset += r;
    for (int i = 1; i < count; ++i) {
      hook(fd, iov[i].base, iov[i].length, offset, &r);
      if (r < 0) return total > 0 ? total : r;
      total += r;
      offset += r;
      if (size_t(r) < iov[i].length) break;
    }
    return total;
  }
  return syscall(number, fd, iov, count, long(offset), 0L);
}
}  // namespace

extern "C" {

ssize_t pwrite(int fd, const void* buf, size_t n, off_t offset) {
  long r;
  if (bouss::journal_hooks::pwrite(fd, buf, n, offset, &r)) return r;
  return syscall(SYS_pwrite64, fd, buf, n, offset);
}

ssize_t pwrite64(int fd, const void* buf, size_t n, off64_t offset) {
  long r;
  if (bouss::journal_hooks::pwrite(fd, buf, n, offset, &r)) return r;
  return syscall(SYS_pwrite64, fd, buf, n, offset);
}

ssize_t pread(int fd, void* buf, size_t n, off_t offset) {
  long r;
  if (bouss::journal_hooks::pread(fd, buf, n, offset, &r)) return r;
  return syscall(SYS_pread64, fd, buf, n, offset);
}

ssize_t pread64(int fd, void* buf, size_t n, off64_t offset) {
  long r;
  if (bouss::journal_hooks::pread(fd, buf, n, offset, &r)) return r;
  return syscall(SYS_pread64, fd, buf, n, offset);
}

ssize_t pwritev(int fd, const IoVec* iov, int count, off_t offset) {
  return vectored(fd, iov, count, offset,
                  [](int f, void* b, size_t n, long long o, long* r) { return bouss::journal_hooks::pwrite(f, b, n, o, r); },
                  SYS_pwritev);
}

ssize_t pwritev64(int fd, const IoVec* iov, int count, off64_t offset) { return pwritev(fd, iov, count, offset); }

ssize_t preadv(int fd, const IoVec* iov, int count, off_t offset) {
  return vectored(fd, iov, count, offset, bouss::journal_hooks::pread, SYS_preadv);
}

ssize_t preadv64(int fd, const IoVec* iov, int count, off64_t offset) { return preadv(fd, iov, count, offset); }

int ftruncate(int fd, off_t length) {
  int r;
  if (bouss::journal_hooks::ftruncate(fd, length, &r)) return r;
  return static_cast<int>(syscall(SYS_ftruncate, fd, length));
}

int ftruncate64(int fd, off64_t length) {
  int r;
  if (bouss::journal_hooks::ftruncate(fd, length, &r)) return r;
  return static_cast<int>(syscall(SYS_ftruncate, fd, length));
}

int fsync(int fd) {
  int r;
  if (bouss::writeback_hooks::fsync(fd, &r)) return r;
  return static_cast<int>(syscall(SYS_fsync, fd));
}

int fdatasync(int fd) {
  int r;
  if (bouss::writeback_hooks::fsync(fd, &r)) return r;
  return static_cast<int>(syscall(SYS_fdatasync, fd));
}

}  // extern "C"
