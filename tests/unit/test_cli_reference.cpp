// docs/cli.md against the commands' own --help (issue 28): every flag a command's --help
// lists is in that command's section of docs/cli.md, every flag the page lists for a command
// is in its --help (the page cannot keep a removed flag), the defaults the page gives are the
// ones --help shows, and every --help is in one layout with its defaults shown.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "process.hpp"

namespace fs = std::filesystem;

namespace {

using Result = bouss::test::CommandResult;

Result run_bouss(const std::string& args) { return bouss::test::run_bouss_line(args, "bouss_cli_reference_test"); }

// The commands, as docs/cli.md's section headings name them ("## bouss bench poisson").
const std::vector<std::string> commands = {"",      "run",   "check",   "bench", "bench poisson", "bench elliptic",
                                           "bench relax", "onset", "converge", "front", "stats", "plot", "xdmf",
                                           "recover", "help"};

std::string heading(const std::string& command) { return command.empty() ? "bouss" : "bouss " + command; }

// The layout of every --help (tools/main.cpp's HelpFormatter, tools/bouss_plot.py's
// Parser): an option's line starts "  -x,--flag" or "  --flag"; its description goes on in
// lines indented by the 30 columns of the name column.
constexpr std::size_t column = 30;

// Each --flag the help lists, with its whole description (continuation lines joined by
// one space).
std::map<std::string, std::string> help_flags(const std::string& help) {
  static const std::regex option_line(R"(^  (?:-[A-Za-z],)?(--[a-z0-9][a-z0-9-]*)(.*)$)");
  std::map<std::string, std::string> flags;
  std::string* current = nullptr;
  std::istringstream lines(help);
  for (std::string line; std::getline(lines, line);) {
    std::smatch m;
    if (std::regex_match(line, m, option_line)) {
      current = &flags[m[1]];
      *current = m[2];
    } else if (current && line.size() > column && line.find_first_not_of(' ') == column) {
      *current += " " + line.substr(column);
    } else {
      current = nullptr;
    }
  }
  return flags;
}

struct DocFlag {
  std::string meaning, default_cell;
};

// docs/cli.md: for each "## bouss ..." section, the flags of its table (a row's first cell
// starts with `--flag`), each with its last cell, the default.
std::map<std::string, std::map<std::string, DocFlag>> doc_sections(std::string& text) {
  std::ifstream f(std::string(BOUSS_SOURCE_DIR) + "/docs/cli.md");
  std::stringstream s;
  s << f.rdbuf();
  text = s.str();
  std::map<std::string, std::map<std::string, DocFlag>> sections;
  std::map<std::string, DocFlag>* current = nullptr;
  static const std::regex row(R"(^\| `(--[a-z0-9][a-z0-9-]*)[^|]*\|(.*)\|([^|]*)\|\s*$)");
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("## ", 0) == 0) {
      const std::string name = line.substr(3);
      current = name.rfind("bouss", 0) == 0 ? &sections[name] : nullptr;
      continue;
    }
    std::smatch m;
    if (current && std::regex_match(line, m, row)) (*current)[m[1]] = DocFlag{m[2], m[3]};
  }
  return sections;
}

std::string help_of(const std::string& command) {
  const Result r = run_bouss(command + " --help");
  EXPECT_EQ(r.code, 0) << heading(command) << " --help: " << r.err;
  return r.out;
}

}  // namespace

TEST(CliReference, EveryFlagOfEveryHelpIsInItsSectionOfTheReference) {
  std::string text;
  const auto sections = doc_sections(text);
  for (const std::string& command : commands) {
    const auto section = sections.find(heading(command));
    ASSERT_NE(section, sections.end()) << "docs/cli.md has no section \"## " << heading(command) << "\"";
    const auto flags = help_flags(help_of(command));
    EXPECT_TRUE(flags.count("--help")) << heading(command) << " --help lists no --help: is it in the layout?";
    for (const auto& [flag, description] : flags) {
      if (flag == "--help") continue;  // every command's; said once at the top of the page
      EXPECT_TRUE(section->second.count(flag))
          << heading(command) << " --help lists " << flag << ", which docs/cli.md's section \"## "
          << heading(command) << "\" does not (a row \"| `" << flag << " ...` | meaning | default |\")";
    }
  }
}

TEST(CliReference, EveryFlagOfTheReferenceIsInItsCommandsHelp) {
  std::string text;
  const auto sections = doc_sections(text);
  std::set<std::string> known(commands.begin(), commands.end());
  for (const auto& [name, flags] : sections) {
    const std::string command = name == "bouss" ? "" : name.substr(6);
    ASSERT_TRUE(known.count(command)) << "docs/cli.md's section \"## " << name << "\" is no command of bouss";
    const auto listed = help_flags(help_of(command));
    for (const auto& [flag, doc] : flags)
      EXPECT_TRUE(listed.count(flag)) << "docs/cli.md lists " << flag << " under \"## " << name << "\", which "
                                      << name << " --help does not: a removed or misplaced flag";
  }
}

// Where the page gives a value as the default (a cell `X`), --help shows "(default X)".
TEST(CliReference, TheReferencesDefaultsAreTheHelps) {
  std::string text;
  const auto sections = doc_sections(text);
  static const std::regex value(R"(^\s*`([^`]+)`\s*$)");
  int compared = 0;
  for (const auto& [name, flags] : sections) {
    const auto listed = help_flags(help_of(name == "bouss" ? "" : name.substr(6)));
    for (const auto& [flag, doc] : flags) {
      std::smatch m;
      if (!std::regex_match(doc.default_cell, m, value) || !listed.count(flag)) continue;
      ++compared;
      EXPECT_NE(listed.at(flag).find("(default " + m[1].str() + ")"), std::string::npos)
          << name << " " << flag << ": docs/cli.md says the default is " << m[1] << ", --help says:"
          << listed.at(flag);
    }
  }
  EXPECT_GT(compared, 30);
}

// Each --help shows its defaults: a fixed list of options whose default is a value.
TEST(CliReference, EveryHelpShowsItsDefaults) {
  const std::map<std::string, std::map<std::string, std::string>> defaults = {
      {"run", {{"--progress", "5"}, {"--backend", "the case's backend, else auto"}}},
      {"bench", {{"--steps", "20"}, {"--warmup", "5"}, {"--from", "latest"}, {"--output-fields", "all,T"},
                 {"--output-precision", "double,float"}}},
      {"bench poisson", {{"--n", "128,128,128"}, {"--bc", "mixed"}, {"--tolerance", "1e-8"}, {"--repeats", "5"},
                         {"--solver", "mg,mg_mixed,direct,cufft3d,csr_cg"}, {"--pre-sweeps", "2"},
                         {"--post-sweeps", "2"}, {"--fmg", "false"}, {"--cuda-graphs", "true"},
                         {"--cpu-coarse-cells", "512"}, {"--precision", "double"}}},
      {"bench elliptic", {{"--n", "128,128,128"}, {"--tolerance", "1e-8"}, {"--repeats", "5"},
                          {"--solver", "thomas,pcr,line_pcg,line_multigrid"}, {"--depth", "0.01"},
                          {"--aspect", "1"}, {"--stretching", "0"}, {"--precision", "double"}}},
      {"bench relax", {{"--sizes", "4,8,12,16,24,32,48,64,96,128"}, {"--sweeps", "100"}}},
      {"onset", {{"--resolutions", "the case's own grid"}, {"--ra", "the case's +-3%"}}},
      {"converge", {{"--resolutions", "the case's own grid"}, {"--diagnostic", "nusselt_bottom"}}},
      {"front", {{"--resolutions", "the case's own grid"}, {"--fraction", "0.5"}}},
      {"plot", {{"--field", "T"}, {"--dpi", "150"}, {"--fps", "10"}, {"--time", "the last record"}}},
  };
  for (const auto& [command, options] : defaults) {
    const auto flags = help_flags(help_of(command));
    for (const auto& [flag, shown] : options) {
      ASSERT_TRUE(flags.count(flag)) << command << " --help lacks " << flag;
      const std::string want = shown.find(' ') == std::string::npos ? "(default " + shown + ")"
                                                                   : "(default: " + shown + ")";
      EXPECT_NE(flags.at(flag).find(want), std::string::npos)
          << command << " " << flag << ": expected " << want << " in:" << flags.at(flag);
    }
  }
}

// One layout: "Usage: bouss COMMAND", the sections, no validator names after a flag
// ("FLOAT:a number >= 0"), every description in the column, and bouss help [COMMAND] the same.
TEST(CliReference, EveryHelpHasOneLayout) {
  for (const std::string& command : commands) {
    const std::string help = help_of(command);
    EXPECT_NE(help.find("\nUsage: " + heading(command) + " "), std::string::npos) << help;
    EXPECT_NE(help.find("\nOptions:\n  -h,--help                   Print this help message and exit\n"),
              std::string::npos)
        << help;
    for (const char* validator : {"TEXT:", "INT:", "FLOAT:", "BOOLEAN:"})
      EXPECT_EQ(help.find(validator), std::string::npos) << heading(command) << " --help shows " << validator;
    std::istringstream lines(help);
    for (std::string line; std::getline(lines, line);) {
      EXPECT_LE(line.size(), 110u) << heading(command) << " --help: a long line: " << line;
      // An option's line: its name, then the description at the column (or on the next line).
      if (line.rfind("  -", 0) == 0) {
        const std::size_t gap = line.find("  ", 2);
        if (gap != std::string::npos)
          EXPECT_EQ(line.find_first_not_of(' ', gap), column)
              << heading(command) << " --help: a description off the column: " << line;
      }
    }
    // bouss help [COMMAND...]: what --help prints.
    if (command != "help") {
      const Result via_help = run_bouss("help " + command);
      EXPECT_EQ(via_help.code, 0) << "bouss help " << command << ": " << via_help.err;
      EXPECT_EQ(via_help.out, help) << "bouss help " << command;
    }
  }
  EXPECT_EQ(run_bouss("help").code, 0);
  EXPECT_EQ(run_bouss("help run").code, 0);
  const Result unknown = run_bouss("help bench frobnicate");
  EXPECT_EQ(unknown.code, 2);
  EXPECT_NE(unknown.err.find("bouss: error: help bench frobnicate: no such command"), std::string::npos)
      << unknown.err;
}
