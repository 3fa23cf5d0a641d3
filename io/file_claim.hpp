// A claim on a file name held by one live process: while a run holds the claim of its output
// FILE or of its checkpoint stem, no second run may write under that name (docs/runs.md,
// "The files of a run"). The claim is an advisory lock (flock) on a lock file beside the name,
// NAME.lock, holding "pid PID on HOST" for the message a refused run prints. The system
// releases the lock when the process ends however it ends (kill -9 included), so a dead run
// never blocks a new one; a lock file left by a killed run is taken over.
#pragma once

#include <optional>
#include <string>

namespace bouss {

class FileClaim {
 public:
  // Claims `lock_path` (creating it, and its folder, when missing). When another live process
  // holds it, returns nothing and sets *holder to "pid PID on HOST" (or "another process"
  // when the lock file says nothing). Throws std::runtime_error (one line) when the lock
  // file cannot be created or locked for another reason.
  static std::optional<FileClaim> try_claim(const std::string& lock_path, std::string* holder);

  // Who holds `lock_path` now ("pid PID on HOST"), or nothing when no live process does;
  // creates nothing (a dry run's look: bouss check).
  static std::optional<std::string> holder(const std::string& lock_path);

  FileClaim(FileClaim&& other) noexcept;
  FileClaim& operator=(FileClaim&& other) noexcept;
  FileClaim(const FileClaim&) = delete;
  FileClaim& operator=(const FileClaim&) = delete;
  // Removes the lock file (while still holding it, so that no other process can be waiting
  // on the removed file: see try_claim) and releases the lock.
  ~FileClaim();

  const std::string& path() const { return path_; }

 private:
  FileClaim(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
  void release();
  std::string path_;
  int fd_ = -1;
};

}  // namespace bouss
