// bouss recover FILE [--output NEW]: every complete record of a killed run's partial file
// (or of any bouss output file) copied into a clean new file (io/output_recovery.hpp;
// docs/output.md, "Kills").
#include <cstdio>
#include <string>

#include "config/case.hpp"
#include "io/output_recovery.hpp"
#include "tools/commands.hpp"

namespace bouss {

int recover_command(const std::string& file, const std::string& output) {
  const std::string to = output.empty() ? recovered_path_for(file) : output;
  try {
    const Recovery r = recover_output(file, to);
    if (r.completed_flush)
      std::printf("completed the flush the run was killed in, from %s.journal\n", file.c_str());
    std::printf("%s\nwrote %s\n", describe_recovery(r).c_str(), to.c_str());
  } catch (const CaseError& e) {
    print_error(e.what());
    return 2;
  } catch (const std::exception& e) {
    print_error(e.what());
    return 1;
  }
  return 0;
}

}  // namespace bouss
