// What libbouss's pwrite, pread and ftruncate (io/flush_journal_hooks.cpp) ask the flush
// journals (io/flush_journal.hpp): each returns false for a descriptor no FlushJournal
// holds (the call then goes to the system as it is), else handles the call and sets *result.
// And what its fsync and fdatasync ask the writebacks (io/writeback.hpp).
#pragma once

#include <cstddef>

namespace bouss::journal_hooks {

bool pwrite(int fd, const void* buf, std::size_t n, long long offset, long* result);
bool pread(int fd, void* buf, std::size_t n, long long offset, long* result);
bool ftruncate(int fd, long long length, int* result);

}  // namespace bouss::journal_hooks

namespace bouss::writeback_hooks {

// False for a descriptor no Writeback defers (the call goes to the system), else starts that
// file's writeback and sets *result = 0.
bool fsync(int fd, int* result);

}  // namespace bouss::writeback_hooks
