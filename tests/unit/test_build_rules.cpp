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
#include <sstream>
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

// The library's layers as the build declares them (CMakeLists.txt, `bouss_layer(NAME DEPENDS
// BELOW...)`): each with the layers it links directly, bottom up.
std::vector<std::pair<std::string, std::vector<std::string>>> declared_layers() {
  std::ifstream in(root / "CMakeLists.txt");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  static const std::regex layer(R"(\nbouss_layer\((\w+)((?:\s+DEPENDS)?(?:\s+\w+)*)\))");
  std::vector<std::pair<std::string, std::vector<std::string>>> out;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), layer); it != std::sregex_iterator(); ++it) {
    std::istringstream words((*it)[2].str());
    std::vector<std::string> below;
    for (std::string w; words >> w;)
      if (w != "DEPENDS") below.push_back(w);
    out.emplace_back((*it)[1].str(), below);
  }
  return out;
}

// The layers each layer may include: its own and every one it links, directly or through
// another. A layer declared before one it links is an error of the declaration (a cycle).
std::map<std::string, std::set<std::string>> reachable_layers() {
  std::map<std::string, std::set<std::string>> reach;
  for (const auto& [name, below] : declared_layers()) {
    std::set<std::string>& r = reach[name];
    r.insert(name);
    for (const std::string& b : below) {
      const auto it = reach.find(b);
      if (it == reach.end()) {
        ADD_FAILURE() << "layer " << name << " links " << b << ", which is not declared below it";
        continue;
      }
      r.insert(it->second.begin(), it->second.end());
    }
  }
  return reach;
}

// The folders of source: every layer, the command line and the tests.
std::vector<fs::path> sources(const std::string& extension) {
  std::vector<std::string> dirs{"tools", "tests"};
  for (const auto& [name, below] : declared_layers()) dirs.push_back(name);
  std::vector<fs::path> out;
  for (const std::string& dir : dirs)
    for (const auto& e : fs::recursive_directory_iterator(root / dir))
      if (e.is_regular_file() && e.path().extension() == extension) out.push_back(e.path());
  return out;
}

// The layer an include names ("grid/field.hpp" -> grid), or "" for a header of no layer.
std::string included_layer(const std::string& include, const std::map<std::string, std::set<std::string>>& layers) {
  const std::string top = include.substr(0, include.find('/'));
  return include.find('/') != std::string::npos && layers.count(top) ? top : "";
}

// Every include of `file` (quoted or angle-bracket) of a layer that `layer` may not include.
std::vector<std::string> upward_includes(const fs::path& file, const std::string& layer,
                                         const std::map<std::string, std::set<std::string>>& layers) {
  static const std::regex include_line(R"(^\s*#\s*include\s*[<"]([^>"]+)[>"])");
  std::vector<std::string> out;
  std::ifstream in(file);
  std::smatch m;
  for (std::string line; std::getline(in, line);) {
    if (!std::regex_search(line, m, include_line)) continue;
    const std::string above = included_layer(m[1].str(), layers);
    if (!above.empty() && !layers.at(layer).count(above)) out.push_back(m[1].str());
  }
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
    const auto layers = reachable_layers();
    if (!layers.count(top) && rel != "tools/baselines.cu" && top != "tests") stray.push_back(rel);
  }
  EXPECT_TRUE(stray.empty()) << ::testing::PrintToString(stray);
}

// The layers stand on each other and never the other way: a file includes headers of its
// own layer and of the layers its layer links (CMakeLists.txt), so the include graph of the
// folders has no cycle and nothing below knows what is above it (the command line, tools/,
// and the tests stand on everything).
TEST(BuildRules, NoLayerIncludesOneAboveIt) {
  const auto layers = reachable_layers();
  ASSERT_GE(layers.size(), 9u) << "CMakeLists.txt declares the layers with bouss_layer(...)";
  std::vector<std::string> offenders;
  for (const auto& [layer, allowed] : layers)
    for (const auto& e : fs::recursive_directory_iterator(root / layer)) {
      const std::string ext = e.path().extension().string();
      if (!e.is_regular_file() || (ext != ".hpp" && ext != ".cpp" && ext != ".cu" && ext != ".cuh")) continue;
      for (const std::string& inc : upward_includes(e.path(), layer, layers))
        offenders.push_back(fs::relative(e.path(), root).string() + " includes " + inc);
    }
  EXPECT_TRUE(offenders.empty()) << "a layer includes one it does not link (CMakeLists.txt bouss_layer): "
                                 << ::testing::PrintToString(offenders);
  // The rule finds what it guards: the bottom may not include the top, the top may include the bottom.
  EXPECT_FALSE(layers.at("grid").count("model"));
  EXPECT_FALSE(layers.at("solver").count("config"));
  EXPECT_TRUE(layers.at("run").count("parallel"));
  const fs::path probe = fs::temp_directory_path() / ("bouss_layer_probe_" + std::to_string(::getpid()) + ".hpp");
  std::ofstream(probe) << "#include <model/simulation.hpp>\n#include \"grid/field.hpp\"\n";
  EXPECT_EQ(upward_includes(probe, "solver", layers), std::vector<std::string>{"model/simulation.hpp"});
  fs::remove(probe);
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
