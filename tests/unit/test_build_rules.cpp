// The build's structural rules, checked on the source tree so that a CPU-only machine (CI)
// catches what would otherwise fail only on a GPU.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

const fs::path root = BOUSS_SOURCE_DIR;

// The project headers a file includes with "...", resolved against the tree's root, the
// file's own folder and tests/.
std::vector<fs::path> project_includes(const fs::path& file) {
  static const std::regex include_line(R"(^\s*#\s*include\s*"([^"]+)\")");
  std::vector<fs::path> out;
  std::ifstream in(file);
  std::string line;
  std::smatch m;
  while (std::getline(in, line)) {
    if (!std::regex_search(line, m, include_line)) continue;
    for (const fs::path& base : {root, file.parent_path(), root / "tests"}) {
      const fs::path p = base / m[1].str();
      if (fs::exists(p)) {
        out.push_back(fs::canonical(p));
        break;
      }
    }
  }
  return out;
}

// Whether `file` reaches `target` through project includes.
bool reaches(const fs::path& file, const fs::path& target, std::set<fs::path>& seen) {
  for (const fs::path& inc : project_includes(file)) {
    if (inc == target) return true;
    if (seen.insert(inc).second && reaches(inc, target, seen)) return true;
  }
  return false;
}

std::vector<fs::path> sources(const std::string& extension) {
  std::vector<fs::path> out;
  for (const char* dir : {"grid", "physics", "solver", "io", "validation", "tools", "tests"})
    for (const auto& e : fs::recursive_directory_iterator(root / dir))
      if (e.is_regular_file() && e.path().extension() == extension) out.push_back(e.path());
  return out;
}

}  // namespace

// A .cpp unit is compiled by the host compiler even in a CUDA build, so a kernel launch in
// it would throw on the GPU only. Every unit that reaches grid/for_each.hpp (reductions
// included) must be a .cu file.
TEST(BuildRules, KernelLaunchesLiveInCudaUnits) {
  const fs::path for_each = fs::canonical(root / "grid/for_each.hpp");
  std::vector<std::string> offenders;
  for (const fs::path& f : sources(".cpp")) {
    std::set<fs::path> seen;
    if (reaches(f, for_each, seen)) offenders.push_back(fs::relative(f, root).string());
  }
  EXPECT_TRUE(offenders.empty()) << "these .cpp units reach grid/for_each.hpp; rename them to .cu: "
                                 << ::testing::PrintToString(offenders);
  // The rule finds what it guards: the kernel units themselves reach the header.
  std::set<fs::path> seen;
  EXPECT_TRUE(reaches(root / "physics/flow.cu", for_each, seen));
}

// Every library .cu is gathered by the build's rule (CMakeLists.txt globs the library
// folders); a .cu elsewhere would silently not be built.
TEST(BuildRules, KernelUnitsSitWhereTheBuildGathersThem) {
  std::vector<std::string> stray;
  for (const fs::path& f : sources(".cu")) {
    const std::string rel = fs::relative(f, root).string();
    const std::string top = rel.substr(0, rel.find('/'));
    if (top != "grid" && top != "physics" && top != "solver" && top != "io" && top != "validation" &&
        rel != "tools/baselines.cu")
      stray.push_back(rel);
  }
  EXPECT_TRUE(stray.empty()) << ::testing::PrintToString(stray);
}

// A copy of a built checkout (`cp -a`) carries a build folder made for the original: the
// set-up built the original's sources and ran its binary (exit 0, a CMake error in the log).
// Now a build folder inside the checkout is made again for it, and one elsewhere is refused
// with one line. Tried on a tiny stand-in checkout (tools/setup.sh and a CMake project that
// builds nothing), so that no real build runs.
TEST(Setup, ABuildFolderMadeForAnotherCheckoutIsNeverUsed) {
  const fs::path tree = fs::temp_directory_path() / ("bouss_setup_" + std::to_string(::getpid()));
  fs::remove_all(tree);
  fs::create_directories(tree / "tools");
  fs::copy_file(root / "tools" / "setup.sh", tree / "tools" / "setup.sh");
  std::ofstream(tree / "CMakeLists.txt") << "cmake_minimum_required(VERSION 3.16)\nproject(standin NONE)\n";
  fs::create_directories(tree / "build");
  std::ofstream(tree / "build" / "CMakeCache.txt") << "CMAKE_HOME_DIRECTORY:INTERNAL=/elsewhere/bouss\n";
  const std::string log = (tree / "log").string();
  const int in_tree = std::system(("bash " + (tree / "tools" / "setup.sh").string() + " >" + log + " 2>&1").c_str());
  std::ifstream said(log);
  const std::string text((std::istreambuf_iterator<char>(said)), std::istreambuf_iterator<char>());
  EXPECT_EQ(WEXITSTATUS(in_tree), 0) << text;
  EXPECT_NE(text.find("was configured for the sources in /elsewhere/bouss, not " + fs::canonical(tree).string() +
                      ": building it again here"),
            std::string::npos)
      << text;
  std::ifstream cache(tree / "build" / "CMakeCache.txt");
  const std::string remade((std::istreambuf_iterator<char>(cache)), std::istreambuf_iterator<char>());
  EXPECT_NE(remade.find("CMAKE_HOME_DIRECTORY:INTERNAL=" + fs::canonical(tree).string()), std::string::npos);
  // A build folder outside the checkout may be the other tree's: refused, left as it is.
  const fs::path outside = tree.string() + "_build";
  fs::create_directories(outside);
  std::ofstream(outside / "CMakeCache.txt") << "CMAKE_HOME_DIRECTORY:INTERNAL=/elsewhere/bouss\n";
  const int refused = std::system(("BOUSS_BUILD_DIR=" + outside.string() + " bash " +
                                   (tree / "tools" / "setup.sh").string() + " >" + log + " 2>&1").c_str());
  std::ifstream said2(log);
  const std::string text2((std::istreambuf_iterator<char>(said2)), std::istreambuf_iterator<char>());
  EXPECT_EQ(WEXITSTATUS(refused), 1) << text2;
  EXPECT_NE(text2.find("remove it or set BOUSS_BUILD_DIR to another folder"), std::string::npos) << text2;
  EXPECT_TRUE(fs::exists(outside / "CMakeCache.txt"));
  fs::remove_all(tree);
  fs::remove_all(outside);
}
