// File-system steps that make output survive: per-process partial names, durable writes
// (fsync of a file and of its folder), the free space of a folder, and a rename that only
// ever replaces a regular file. Shared by the NetCDF writer and the checkpoints.
#pragma once

#include <cstdint>
#include <string>

namespace bouss {

// PATH.<pid>.partial: the name a file is written under until it is complete. Each process
// has its own, so two runs writing the same PATH never touch each other's partial file.
std::string partial_path(const std::string& path);

// `path` made absolute against the working folder and lexically normal ("a/../b" -> "b");
// `path` itself when the working folder cannot be read.
std::string absolute_path(const std::string& path);

// What is at `path` now (symbolic links followed unless said otherwise).
enum class PathKind { missing, regular, directory, other };
PathKind path_kind(const std::string& path);
bool is_symlink(const std::string& path);

// Flushes a file's data, and a folder's entries (so that a rename in it is durable), to the
// device. Throws std::runtime_error naming the path when the system reports an error.
void fsync_file(const std::string& path);
void fsync_folder_of(const std::string& path);

// Bytes available to this user in the folder that holds (or will hold) `path`.
std::uintmax_t free_bytes(const std::string& path);

// Renames `from` to `to` atomically, replacing `to` only when it is missing or a regular
// file (a device node, folder, pipe or socket is never replaced), then fsyncs the folder.
// Throws std::runtime_error with one line naming both paths and the reason.
void replace_file(const std::string& from, const std::string& to);

// "12.3 GiB", "512 MiB", "17 KiB": sizes in messages.
std::string format_bytes(double bytes);

}  // namespace bouss
