// Reading a text attribute of a NetCDF file: the one reader the writer (the history it
// appends to), a restart (a file's run id), bouss recover (a file's case) and checkpoints'
// lookups share. NetCDF calls: from the IO thread (io/io_thread.hpp), or a process without one.
#pragma once

#include <string>

namespace bouss {

// The text attribute `name` of variable `varid` (NC_GLOBAL for the file's own) of the open
// file `ncid`, without trailing NULs; "" when it has none, or it is not text.
std::string text_attribute(int ncid, int varid, const std::string& name);

// The global text attribute `name` of the NetCDF file at `path` ("" when it has none). Throws
// std::runtime_error (one line naming the file) when the file cannot be opened.
std::string file_text_attribute(const std::string& path, const std::string& name);

}  // namespace bouss
