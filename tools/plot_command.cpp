// bouss plot: pictures from an output file. The pictures are drawn by tools/bouss_plot.py
// (xarray and matplotlib); this command only finds the script and execs
// `/usr/bin/python3 SCRIPT ARGS...` in its place, so the script parses the flags (and
// prints `bouss plot --help`), and its exit code is bouss's: 0 drawn, 2 bad input.
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "tools/commands.hpp"

namespace bouss {

namespace {

// Debian's interpreter, where tools/setup.sh installs python3-xarray and python3-matplotlib
// (a python3 earlier on PATH, a pyenv one say, lacks them).
constexpr const char* plot_python = "/usr/bin/python3";

// BOUSS_PLOT_SCRIPT when set, else the source tree's tools/bouss_plot.py (BOUSS_TOOLS_DIR,
// set by CMakeLists.txt).
std::string plot_script() {
  const char* env = std::getenv("BOUSS_PLOT_SCRIPT");
  if (env && *env) return env;
  return std::string(BOUSS_TOOLS_DIR) + "/bouss_plot.py";
}

}  // namespace

int plot_command(const std::vector<std::string>& args) {
  const std::string script = plot_script();
  if (::access(script.c_str(), R_OK) != 0) {
    print_error("plot: the plotting script " + script + " cannot be read (" + std::strerror(errno) +
                "); BOUSS_PLOT_SCRIPT names another");
    return 1;
  }
  std::vector<std::string> words{plot_python, script};
  words.insert(words.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  std::fflush(stdout);
  std::fflush(stderr);
  ::execv(plot_python, argv.data());
  print_error(std::string("plot: cannot run ") + plot_python + " (" + std::strerror(errno) +
              "); tools/setup.sh installs python3 with xarray and matplotlib");
  return 1;
}

}  // namespace bouss
