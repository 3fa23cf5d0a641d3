// Flushes that a kill cannot tear: see io/flush_journal.hpp and docs/output.md, "Kills".
#include "io/flush_journal.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <hdf5.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <thread>
#include <stdexcept>
#include <vector>

#include "io/flush_journal_hooks.hpp"

namespace bouss {
namespace {

// The system calls themselves: libbouss's pwrite and friends (io/flush_journal_hooks.cpp)
// stand in front of the C library's, and the journal's own I/O must not come back to them.
long sys_pwrite(int fd, const void* buf, std::size_t n, std::uint64_t off) {
  return ::syscall(SYS_pwrite64, fd, buf, n, static_cast<off_t>(off));
}
long sys_pread(int fd, void* buf, std::size_t n, std::uint64_t off) {
  return ::syscall(SYS_pread64, fd, buf, n, static_cast<off_t>(off));
}
int sys_ftruncate(int fd, std::uint64_t length) {
  return static_cast<int>(::syscall(SYS_ftruncate, fd, static_cast<off_t>(length)));
}

// Writes all of buf at off (a write to a regular file may be short only when interrupted).
bool write_all(int fd, const char* buf, std::size_t n, std::uint64_t off) {
  while (n > 0) {
    const long w = sys_pwrite(fd, buf, n, off);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    buf += w;
    n -= std::size_t(w);
    off += std::uint64_t(w);
  }
  return true;
}

std::uint64_t file_size_of(int fd) {
  struct stat st{};
  return ::fstat(fd, &st) == 0 ? std::uint64_t(st.st_size) : 0;
}

// FNV-1a over 64-bit words (then the last bytes one by one): tells a journal that a kill
// cut short from a complete one. A word at a time: byte by byte it took 100 us for the
// 100 KiB of a small case's flush, a tenth of its step.
std::uint64_t checksum(const char* p, std::size_t n) {
  std::uint64_t h = 1469598103934665603ull;
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    std::uint64_t w;
    std::memcpy(&w, p + i, 8);
    h ^= w;
    h *= 1099511628211ull;
    h ^= h >> 29;
  }
  for (; i < n; ++i) {
    h ^= static_cast<unsigned char>(p[i]);
    h *= 1099511628211ull;
  }
  return h;
}

// The journal, one commit:
//   header  "BOUSSJNL" | u64 version | u64 sequence | u64 operations | u64 body bytes
//   body    per operation: u64 kind (1 write, 2 truncate) | u64 offset or length | u64 bytes | bytes
//   trailer u64 checksum of header and body | "COMMITTD"
// A spent journal has its first 8 bytes zeroed.
constexpr char kMagic[8] = {'B', 'O', 'U', 'S', 'S', 'J', 'N', 'L'};
constexpr char kCommitted[8] = {'C', 'O', 'M', 'M', 'I', 'T', 'T', 'D'};
constexpr std::uint64_t kVersion = 1;
constexpr std::size_t kHeaderBytes = 40, kTrailerBytes = 16;
enum : std::uint64_t { kWrite = 1, kTruncate = 2 };

void put_u64(std::vector<char>& out, std::uint64_t v) {
  char b[8];
  std::memcpy(b, &v, 8);
  out.insert(out.end(), b, b + 8);
}
std::uint64_t get_u64(const char* p) {
  std::uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

struct Operation {
  std::uint64_t kind = kWrite;
  std::uint64_t offset = 0;  // a write's offset, a truncation's length
  std::vector<char> bytes;
  std::uint64_t end() const { return kind == kWrite ? offset + bytes.size() : offset; }
};

// The order to apply a commit's writes in. The file reaches the same bytes in any order when
// no two writes overlap; then the order that leaves a reader the least to trip on if the
// writer is killed half-way (until the journal completes the commit): HDF5's superblock
// first (its end of the file's space only grows), then the chunk-index nodes ("TREE") and
// the data (what they add lies beyond every variable's length until its object header
// says otherwise), and the other metadata, the object headers with the variables' lengths
// among it, last. In HDF5's own order (by address) the object headers come before the index
// nodes, and a kill between them left a last record of fill values (7 of 200 random kills
// of a run writing a record every step). With a truncation or overlapping writes, HDF5's
// order as it is.
std::vector<std::size_t> apply_order(const std::vector<Operation>& ops) {
  std::vector<std::size_t> order(ops.size());
  for (std::size_t i = 0; i < ops.size(); ++i) order[i] = i;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> spans;
  for (const Operation& op : ops) {
    if (op.kind != kWrite) return order;
    spans.emplace_back(op.offset, op.end());
  }
  std::sort(spans.begin(), spans.end());
  for (std::size_t i = 1; i < spans.size(); ++i)
    if (spans[i].first < spans[i - 1].second) return order;
  auto rank = [&](const Operation& op) {
    if (op.offset == 0) return 0;
    const auto& b = op.bytes;
    const bool signature = b.size() >= 4 && std::all_of(b.begin(), b.begin() + 4, [](char c) { return c >= 'A' && c <= 'Z'; });
    return !signature || std::string(b.begin(), b.begin() + 4) == "TREE" ? 1 : 2;
  };
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return rank(ops[a]) < rank(ops[b]); });
  return order;
}

// Applies operations to the file `fd`; `after_write(n)` is called after the n-th write.
template <class AfterWrite>
bool apply(int fd, const std::vector<Operation>& ops, AfterWrite&& after_write) {
  long n = 0;
  for (const std::size_t i : apply_order(ops)) {
    const Operation& op = ops[i];
    if (op.kind == kTruncate) {
      if (sys_ftruncate(fd, op.offset) != 0) return false;
    } else {
      if (!write_all(fd, op.bytes.data(), op.bytes.size(), op.offset)) return false;
      after_write(++n);
    }
  }
  return true;
}

// A committed journal read back: its operations, or none when it holds no complete commit.
bool parse_journal(const std::vector<char>& j, std::vector<Operation>& ops, std::string& why) {
  if (j.size() < kHeaderBytes + kTrailerBytes || std::memcmp(j.data(), kMagic, 8) != 0) return false;
  if (get_u64(j.data() + 8) != kVersion) {
    why = "it was written by another version of bouss (journal version " + std::to_string(get_u64(j.data() + 8)) + ")";
    return false;
  }
  const std::uint64_t count = get_u64(j.data() + 24), body = get_u64(j.data() + 32);
  if (body > j.size() - kHeaderBytes - kTrailerBytes) return false;
  const char* trailer = j.data() + kHeaderBytes + body;
  if (std::memcmp(trailer + 8, kCommitted, 8) != 0 || get_u64(trailer) != checksum(j.data(), kHeaderBytes + body))
    return false;
  const char* p = j.data() + kHeaderBytes;
  const char* end = p + body;
  for (std::uint64_t i = 0; i < count; ++i) {
    if (end - p < 24) return false;
    Operation op;
    op.kind = get_u64(p);
    op.offset = get_u64(p + 8);
    const std::uint64_t n = get_u64(p + 16);
    p += 24;
    if (std::uint64_t(end - p) < n) return false;
    op.bytes.assign(p, p + n);
    p += n;
    ops.push_back(std::move(op));
  }
  return true;
}

}  // namespace

struct FlushJournal::State {
  std::string partial, journal;
  int fd = -1;                 // HDF5's descriptor of the file
  dev_t dev = 0;               // the file it must lead to (a closed descriptor's number may be reused)
  ino_t ino = 0;
  std::thread::id owner;       // the thread that writes the file through HDF5 (see holder_of)
  std::vector<char> buffer;    // the journal of one commit, kept for the next
  int file_fd = -1;            // ours, to put commits into the file
  int journal_fd = -1;
  std::vector<Operation> ops;  // held since the last commit, in HDF5's order
  std::uint64_t committed_end = 0;  // the file's size at the last commit: below it, writes are in place
  bool hold_all = false;            // a truncation was held: hold everything after it too
  std::uint64_t sequence = 0;
  long writes = 0;
  long kill_at = 0;                 // test hook: count down to SIGKILL
  bool kill_in_commit = false;
  bool keep_journal = false;        // a commit did not reach the file: replay needs the journal

  bool overlaps_held(std::uint64_t lo, std::uint64_t hi) const {
    for (const Operation& op : ops)
      if (op.kind == kWrite && lo < op.end() && op.offset < hi) return true;
    return false;
  }

  // HDF5 writes: held when in place, else written.
  long write(const void* buf, std::size_t n, std::uint64_t off) {
    ++writes;
    if (kill_at > 0 && !kill_in_commit && --kill_at == 0) std::raise(SIGKILL);
    if (!hold_all && off >= committed_end && !overlaps_held(off, off + n)) return sys_pwrite(fd, buf, n, off);
    Operation op;
    op.offset = off;
    op.bytes.assign(static_cast<const char*>(buf), static_cast<const char*>(buf) + n);
    ops.push_back(std::move(op));
    return long(n);
  }

  // HDF5 reads: the file, with the held writes over it.
  long read(void* buf, std::size_t n, std::uint64_t off) {
    long r = sys_pread(fd, buf, n, off);
    if (r < 0 || ops.empty()) return r;
    char* out = static_cast<char*>(buf);
    std::uint64_t end = off + std::uint64_t(r);
    for (const Operation& op : ops)
      if (op.kind == kWrite && op.offset < off + n && op.end() > off) end = std::max(end, std::min(op.end(), off + n));
    if (end > off + std::uint64_t(r)) std::memset(out + r, 0, end - off - std::uint64_t(r));
    for (const Operation& op : ops) {
      if (op.kind != kWrite || op.offset >= off + n || op.end() <= off) continue;
      const std::uint64_t lo = std::max(op.offset, off), hi = std::min(op.end(), off + n);
      std::memcpy(out + (lo - off), op.bytes.data() + (lo - op.offset), hi - lo);
    }
    return long(end - off);
  }

  int truncate(std::uint64_t length) {
    if (!hold_all && ops.empty() && length >= committed_end) return sys_ftruncate(fd, length);
    Operation op;
    op.kind = kTruncate;
    op.offset = length;
    ops.push_back(std::move(op));
    hold_all = true;
    return 0;
  }
};

namespace {

// The descriptors held by FlushJournals. A call on any other descriptor costs one relaxed
// load (none held) or a scan of these slots. Constant-initialized: the C library's callers
// may come here before any constructor of libbouss has run.
constexpr int kSlots = 16;
struct Slot {
  std::atomic<int> fd{-1};
  FlushJournal::State* state = nullptr;  // under held_mutex
};
Slot slots[kSlots];
std::atomic<int> held_count{0};
std::mutex held_mutex;  // registration, and every call on a held descriptor

// The state that holds `fd`, with held_mutex locked, or null (and unlocked).
FlushJournal::State* holder_of(int fd, std::unique_lock<std::mutex>& lock) {
  if (held_count.load(std::memory_order_relaxed) == 0) return nullptr;
  bool candidate = false;
  for (const Slot& slot : slots) candidate = candidate || slot.fd.load(std::memory_order_relaxed) == fd;
  if (!candidate) return nullptr;
  lock = std::unique_lock<std::mutex>(held_mutex);
  for (const Slot& slot : slots) {
    FlushJournal::State* s = slot.state;
    if (slot.fd.load() != fd || !s) continue;
    // HDF5's own calls come from the writer's thread, which never reuses the number before
    // the FlushJournal lets it go; another thread's call may be on a reused number.
    if (std::this_thread::get_id() == s->owner) return s;
    struct stat st{};
    if (::fstat(fd, &st) == 0 && st.st_dev == s->dev && st.st_ino == s->ino) return s;
  }
  lock.unlock();
  return nullptr;
}

}  // namespace

namespace journal_hooks {

bool pwrite(int fd, const void* buf, std::size_t n, long long off, long* result) {
  std::unique_lock<std::mutex> lock;
  FlushJournal::State* s = holder_of(fd, lock);
  if (!s) return false;
  *result = s->write(buf, n, std::uint64_t(off));
  return true;
}

bool pread(int fd, void* buf, std::size_t n, long long off, long* result) {
  std::unique_lock<std::mutex> lock;
  FlushJournal::State* s = holder_of(fd, lock);
  if (!s) return false;
  *result = s->read(buf, n, std::uint64_t(off));
  return true;
}

bool ftruncate(int fd, long long length, int* result) {
  std::unique_lock<std::mutex> lock;
  FlushJournal::State* s = holder_of(fd, lock);
  if (!s) return false;
  *result = s->truncate(std::uint64_t(length));
  return true;
}

}  // namespace journal_hooks

std::string journal_path(const std::string& partial) { return partial + ".journal"; }

std::vector<int> descriptors_of(const std::string& path) {
  std::vector<int> fds;
  struct stat want{};
  if (::stat(path.c_str(), &want) != 0) return fds;
  DIR* dir = ::opendir("/proc/self/fd");
  if (!dir) return fds;
  const int own = ::dirfd(dir);
  while (const dirent* e = ::readdir(dir)) {
    char* end = nullptr;
    const long fd = std::strtol(e->d_name, &end, 10);
    if (end == e->d_name || *end != '\0' || fd == own) continue;
    struct stat st{};
    if (::fstat(int(fd), &st) == 0 && st.st_dev == want.st_dev && st.st_ino == want.st_ino) fds.push_back(int(fd));
  }
  ::closedir(dir);
  std::sort(fds.begin(), fds.end());
  return fds;
}

void hdf5_metadata_from_rank_0(const std::string& path) {
#if defined(H5_HAVE_PARALLEL)
  struct stat want{};
  if (::stat(path.c_str(), &want) != 0) return;
  const ssize_t count = H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_FILE);
  if (count <= 0) return;
  std::vector<hid_t> ids(static_cast<std::size_t>(count));
  const ssize_t got = H5Fget_obj_ids(H5F_OBJ_ALL, H5F_OBJ_FILE, ids.size(), ids.data());
  for (ssize_t i = 0; i < got; ++i) {
    char name[4096] = {};
    struct stat st{};
    if (H5Fget_name(ids[i], name, sizeof name) < 0 || ::stat(name, &st) != 0) continue;
    if (st.st_dev != want.st_dev || st.st_ino != want.st_ino) continue;
    H5AC_cache_config_t config{};
    config.version = H5AC__CURR_CACHE_CONFIG_VERSION;
    if (H5Fget_mdc_config(ids[i], &config) < 0) continue;
    config.metadata_write_strategy = H5AC_METADATA_WRITE_STRATEGY__PROCESS_0_ONLY;
    H5Fset_mdc_config(ids[i], &config);
  }
#else
  (void)path;
#endif
}

int hdf5_descriptor_of(const std::string& path) {
  struct stat want{};
  if (::stat(path.c_str(), &want) != 0) return -1;
  const ssize_t count = H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_FILE);
  if (count <= 0) return -1;
  // The identifiers come without a reference of their own: nothing to close.
  std::vector<hid_t> ids(static_cast<std::size_t>(count));
  const ssize_t got = H5Fget_obj_ids(H5F_OBJ_ALL, H5F_OBJ_FILE, ids.size(), ids.data());
  for (ssize_t i = 0; i < got; ++i) {
    const hid_t fapl = H5Fget_access_plist(ids[i]);
    if (fapl < 0) continue;
    const bool sec2 = H5Pget_driver(fapl) == H5FD_SEC2;
    H5Pclose(fapl);
    void* handle = nullptr;
    if (!sec2 || H5Fget_vfd_handle(ids[i], H5P_DEFAULT, &handle) < 0 || !handle) continue;
    const int fd = *static_cast<int*>(handle);
    struct stat st{};
    if (::fstat(fd, &st) == 0 && st.st_dev == want.st_dev && st.st_ino == want.st_ino) return fd;
  }
  return -1;
}

FlushJournal::FlushJournal(const std::string& partial, int fd) : FlushJournal(partial, std::vector<int>{fd}, true) {}

FlushJournal::FlushJournal(const std::string& partial, const std::vector<int>& fds, bool keeps_journal)
    : s_(std::make_unique<State>()) {
  State& s = *s_;
  s.partial = partial;
  s.journal = keeps_journal ? journal_path(partial) : std::string();
  s.fd = fds.empty() ? -1 : fds.front();
  struct stat st{};
  if (s.fd < 0 || ::fstat(s.fd, &st) != 0) throw std::runtime_error("HDF5 does not write it through a file descriptor");
  s.dev = st.st_dev;
  s.ino = st.st_ino;
  s.owner = std::this_thread::get_id();
  s.committed_end = std::uint64_t(st.st_size);
  s.file_fd = ::open(partial.c_str(), O_RDWR | O_CLOEXEC);
  if (s.file_fd < 0) throw std::runtime_error("cannot open " + partial + ": " + std::strerror(errno));
  if (keeps_journal) {
    // No partial file of this name existed (the writer claimed it with O_EXCL): a journal of
    // the name belonged to a partial file removed since, and holds nothing of this one.
    s.journal_fd = ::open(s.journal.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (s.journal_fd < 0) {
      const int err = errno;
      ::close(s.file_fd);
      throw std::runtime_error("cannot create " + s.journal + ": " + std::strerror(err));
    }
    // Held while this lives, so that replay_flush_journal leaves a live run's journal alone.
    ::flock(s.journal_fd, LOCK_EX | LOCK_NB);
  }
  std::lock_guard<std::mutex> lock(held_mutex);
  std::size_t placed = 0;
  for (Slot& slot : slots) {
    if (slot.state || placed == fds.size()) continue;
    slot.state = &s;
    slot.fd.store(fds[placed++]);
    held_count.fetch_add(1);
  }
  if (placed == fds.size()) return;
  for (Slot& slot : slots) {
    if (slot.state != &s) continue;
    slot.state = nullptr;
    slot.fd.store(-1);
    held_count.fetch_sub(1);
  }
  ::close(s.file_fd);
  if (keeps_journal) {
    ::close(s.journal_fd);
    ::unlink(s.journal.c_str());
  }
  throw std::runtime_error("more than " + std::to_string(kSlots) + " output files open at once");
}

FlushJournal::~FlushJournal() {
  State& s = *s_;
  {
    std::lock_guard<std::mutex> lock(held_mutex);
    for (Slot& slot : slots) {
      if (slot.state != &s) continue;
      slot.state = nullptr;
      slot.fd.store(-1);
      held_count.fetch_sub(1);
    }
  }
  ::close(s.file_fd);
  if (s.journal_fd < 0) return;
  if (!s.keep_journal) ::unlink(s.journal.c_str());
  ::close(s.journal_fd);
}

void FlushJournal::commit() {
  State& s = *s_;
  std::lock_guard<std::mutex> lock(held_mutex);
  if (s.journal_fd < 0) throw std::logic_error("commit: this journal commits through another rank's");
  if (s.keep_journal) throw std::runtime_error("an earlier commit did not reach the file; run `bouss recover " + s.partial + "`");
  if (s.ops.empty()) {
    s.committed_end = std::max(s.committed_end, file_size_of(s.file_fd));
    s.kill_at = 0;
    return;
  }
  std::vector<char>& j = s.buffer;
  j.clear();
  j.insert(j.end(), kMagic, kMagic + 8);
  put_u64(j, kVersion);
  put_u64(j, ++s.sequence);
  put_u64(j, s.ops.size());
  put_u64(j, 0);  // body bytes, below
  for (const Operation& op : s.ops) {
    put_u64(j, op.kind);
    put_u64(j, op.offset);
    put_u64(j, op.bytes.size());
    j.insert(j.end(), op.bytes.begin(), op.bytes.end());
  }
  const std::uint64_t body = j.size() - kHeaderBytes;
  std::memcpy(j.data() + 32, &body, 8);
  put_u64(j, checksum(j.data(), j.size()));
  j.insert(j.end(), kCommitted, kCommitted + 8);
  // 1. The journal, whole (a kill inside this write leaves a journal whose checksum fails,
  //    and the file untouched).
  if (!write_all(s.journal_fd, j.data(), j.size(), 0))
    throw std::runtime_error("cannot write " + s.journal + ": " + std::strerror(errno));
  // 2. The file.
  const bool applied = apply(s.file_fd, s.ops, [&](long n) {
    if (s.kill_in_commit && s.kill_at > 0 && n == s.kill_at) std::raise(SIGKILL);
  });
  if (!applied) {
    s.keep_journal = true;
    throw std::runtime_error("cannot write " + s.partial + ": " + std::strerror(errno) + "; its last flush is in " +
                             s.journal + ", and `bouss recover " + s.partial + "` completes it");
  }
  // 3. Spent.
  const char zeros[8] = {};
  if (!write_all(s.journal_fd, zeros, sizeof zeros, 0)) {
    s.keep_journal = true;  // still valid, and applying it again changes nothing
    throw std::runtime_error("cannot write " + s.journal + ": " + std::strerror(errno));
  }
  s.ops.clear();
  s.hold_all = false;
  s.committed_end = file_size_of(s.file_fd);
  s.kill_at = 0;  // the test hook counts within one flush
}

std::vector<char> FlushJournal::take_held() {
  std::lock_guard<std::mutex> lock(held_mutex);
  // u64 bytes after this | u64 hold_all | per operation: u64 kind | u64 offset | u64 bytes | bytes
  std::vector<char> out;
  put_u64(out, 0);
  put_u64(out, s_->hold_all ? 1 : 0);
  for (const Operation& op : s_->ops) {
    put_u64(out, op.kind);
    put_u64(out, op.offset);
    put_u64(out, op.bytes.size());
    out.insert(out.end(), op.bytes.begin(), op.bytes.end());
  }
  const std::uint64_t after = out.size() - 8;
  std::memcpy(out.data(), &after, 8);
  s_->ops.clear();
  s_->hold_all = false;
  return out;
}

void FlushJournal::hold(const std::vector<char>& held) {
  std::lock_guard<std::mutex> lock(held_mutex);
  const char* at = held.data();
  const char* const all_end = held.data() + held.size();
  while (all_end - at >= 16) {  // one take_held() after another (several ranks')
    const std::uint64_t size = std::min<std::uint64_t>(get_u64(at), std::uint64_t(all_end - at - 8));
    const char* p = at + 16;
    const char* end = at + 8 + size;
    s_->hold_all = s_->hold_all || get_u64(at + 8) != 0;
    while (end - p >= 24) {
      Operation op;
      op.kind = get_u64(p);
      op.offset = get_u64(p + 8);
      const std::uint64_t n = get_u64(p + 16);
      p += 24;
      if (std::uint64_t(end - p) < n) break;
      op.bytes.assign(p, p + n);
      p += n;
      s_->ops.push_back(std::move(op));
    }
    at = end;
  }
}

void FlushJournal::committed_elsewhere() {
  std::lock_guard<std::mutex> lock(held_mutex);
  s_->ops.clear();
  s_->hold_all = false;
  s_->committed_end = file_size_of(s_->file_fd);
  s_->kill_at = 0;
}

void FlushJournal::discard() {
  std::lock_guard<std::mutex> lock(held_mutex);
  s_->ops.clear();
  s_->hold_all = false;
}

long FlushJournal::writes_seen() const {
  std::lock_guard<std::mutex> lock(held_mutex);
  return s_->writes;
}

void FlushJournal::kill_at_write(long write, bool in_commit) {
  std::lock_guard<std::mutex> lock(held_mutex);
  s_->kill_at = write;
  s_->kill_in_commit = in_commit;
}

bool replay_flush_journal(const std::string& partial) {
  const std::string path = journal_path(partial);
  const int jfd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (jfd < 0) {
    if (errno == ENOENT) return false;
    throw std::runtime_error("cannot open " + path + ": " + std::strerror(errno));
  }
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{jfd};
  if (::flock(jfd, LOCK_EX | LOCK_NB) != 0)
    throw std::runtime_error(partial + " is being written: a running bouss holds its journal " + path +
                             "; wait for the run to end (or stop it) first");
  std::vector<char> j(file_size_of(jfd));
  std::size_t got = 0;
  while (got < j.size()) {
    const long r = sys_pread(jfd, j.data() + got, j.size() - got, got);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) throw std::runtime_error("cannot read " + path + ": " + std::strerror(r < 0 ? errno : EIO));
    got += std::size_t(r);
  }
  std::vector<Operation> ops;
  std::string why;
  if (!parse_journal(j, ops, why)) {
    if (!why.empty()) throw std::runtime_error("cannot complete the last flush of " + partial + " from " + path + ": " + why);
    ::unlink(path.c_str());  // spent, or cut short before the flush began to change the file
    return false;
  }
  const int fd = ::open(partial.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0)
    throw std::runtime_error("cannot complete the last flush of " + partial + " from " + path + ": " + std::strerror(errno));
  const bool applied = apply(fd, ops, [](long) {}) && ::fsync(fd) == 0;
  const int err = errno;
  ::close(fd);
  if (!applied)
    throw std::runtime_error("cannot complete the last flush of " + partial + " from " + path + ": " + std::strerror(err));
  ::unlink(path.c_str());
  return true;
}

}  // namespace bouss
