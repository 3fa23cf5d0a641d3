// The rate at which the disk under a folder takes written bytes: plain write()s of 16 MiB
// blocks and an fsync, into a file that never has a name where the system allows it
// (O_TMPFILE), else into a named one removed at once. For `bouss bench --output-every`'s
// bound and `bouss check`'s estimate of the time a run's output takes.
#pragma once

#include <string>

namespace bouss {

// Bytes per second; throws std::runtime_error naming the folder when it cannot be written
// (no permission, a full disk).
double disk_rate(const std::string& folder, double bytes);

}  // namespace bouss
