// pwrite, pread and ftruncate of the C library, as libbouss defines them for the whole
// process: HDF5 (through NetCDF-4) writes its files with these, and a call on a descriptor
// that a FlushJournal holds goes to the journal (io/flush_journal.hpp); every other call goes
// to the system directly, as the C library's own would. The executable and the test suites
// link libbouss before the C library, so the dynamic linker binds HDF5's calls here.
//
// This unit includes no <unistd.h>, whose declarations of these functions (exception
// specifications, 64-bit redirections) would clash with the definitions.
#include <sys/syscall.h>
#include <sys/types.h>

#include "io/flush_journal_hooks.hpp"

extern "C" long syscall(long number, ...);

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

}  // extern "C"
