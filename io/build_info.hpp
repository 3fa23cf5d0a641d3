// What build this is: version, git commit, CUDA architectures and arithmetic settings.
// `bouss --version` prints it, and every output file and checkpoint records it (the
// NetCDF global attribute `bouss_build`), so a result can be traced to the code that made it.
#pragma once

#include <string>

namespace bouss {

struct BuildInfo {
  std::string version;             // the project version (CMakeLists.txt)
  std::string git_commit;          // short hash, "-dirty" when tracked files differed; "unknown" outside git
  std::string cuda_architectures;  // e.g. "90"; empty in a build without CUDA
  bool cuda_fmad = false;          // nvcc contracts a*b+c into FMAs (BOUSS_CUDA_FMAD)
  std::string cxx_compiler;        // e.g. "GNU-12.2.0"
  std::string cuda_compiler;       // nvcc version; empty without CUDA
  std::string build_type;          // Release, Debug, ...
  std::string memory_variant;      // "" (the defaults), or e.g. "plain loads, unpadded rows" (CMakeLists.txt, Table I)
};

const BuildInfo& build_info();

// One line: "bouss 0.1.0 (git 1a2b3c4d5e6f; CUDA sm_90, fmad off, nvcc 13.0.48; GNU-12.2.0; Release)".
std::string build_provenance();

}  // namespace bouss
