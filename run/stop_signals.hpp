// How a run is told from outside to stop or to checkpoint (CaNS and batch systems' habit):
//   SIGINT, SIGTERM, SIGHUP (a closed terminal), SIGUSR2 (forwarded by mpirun)
//                    the first: finish the step in progress, write a checkpoint, close the
//                    output under its final name, exit 128 + the signal (130, 143, 129, 140);
//                    a second: stop at once (the output stays under its partial name);
//   SIGUSR1          write a checkpoint after the step in progress and go on.
// The handlers only set flags; the run driver (run/run.hpp) reads them between steps.
#pragma once

#include <string>

namespace bouss::stop_signals {

// Installs the handlers (once per process; later calls do nothing).
void install();
// The stopping signal received (SIGINT, SIGTERM, SIGHUP or SIGUSR2), or 0.
int stop_requested();
// "SIGINT", "SIGTERM", "SIGHUP" or "SIGUSR2": a stopping signal's name, for the log.
const char* name(int signal);
// True once for each SIGUSR1 received since the last call.
bool take_checkpoint_request();
// The line the handler writes to stderr when a second signal stops the process at once
// (async-signal-safe: it is copied into a fixed buffer here, written with write(2) there).
void set_abort_message(const std::string& line);
// For tests: what a signal would have done, without sending one.
void simulate(int signal);
void reset();

}  // namespace bouss::stop_signals
