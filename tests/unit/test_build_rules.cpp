// The build's structural rules, checked on the source tree so that a CPU-only machine (CI)
// catches what would otherwise fail only on a GPU.
#include <gtest/gtest.h>

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
