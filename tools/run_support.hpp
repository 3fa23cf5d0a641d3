// Shared pieces of the run and bench commands: logging set-up and the run summaries.
#pragma once

#include <exception>
#include <string>
#include <vector>

#include "grid/backend.hpp"
#include "config/case.hpp"
#include "model/simulation.hpp"

namespace bouss {

class Run;

// The case of a command (from CASE.json with --set overrides) and its backend (--backend,
// else the case's). On bad input prints the one error line and returns false (exit 2).
// The backend on every rank of the run (Communicator::world) when started by mpirun, each
// rank on a GPU of its node; the backend itself otherwise.
Backend on_the_ranks(const Backend& backend);
// Under mpirun the backend holds every rank (Communicator::world), each on a GPU of its
// node, and `decomposition` ("PXxPY", or "" to choose) cuts the grid.
bool load_command_case(const std::string& case_file, const std::vector<std::string>& overrides,
                       const std::string& backend_name, Case& c, Backend& backend,
                       const std::string& decomposition = "");
// Prints the error line of a failed command and returns its exit code: 2 for bad input (a
// CaseError: refused before the run), 1 for a failure while running.
int report_failure(const std::exception& e);
// Run::start() for a command: 0 when the run started, else 2 after printing the error line
// and removing what the run had begun to write (Run::abandon_start).
int start_command_run(Run& run);

// Log lines as "[HH:MM:SS] text", on stdout, or on stderr where stdout carries JSON.
void configure_logging(bool to_stderr = false);
void log_case_summary(const Case& c, const Backend& backend);
// "pressure: multigrid V(2,2) to 1e-08, 8 levels: 256x256x128, ..., 2x2x1 (host)"
// (describe_pressure, model/pressure_plan.hpp)
void log_solver_summary(const Simulation& sim);
std::string json_escape(const std::string& s);

}  // namespace bouss
