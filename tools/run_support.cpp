#include "tools/run_support.hpp"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <mutex>

#include "grid/stretching.hpp"
#include "io/checkpoint.hpp"
#include "io/netcdf_handles.hpp"

#include <spdlog/sinks/base_sink.h>
#include <spdlog/spdlog.h>

#include <algorithm>

#include "run/run.hpp"
#include "tools/commands.hpp"

namespace bouss {

Backend on_the_ranks(const Backend& backend) {
  const auto world = Communicator::world();
  if (world->alone()) return backend;
  // Each rank on a GPU of its node, round robin.
  const Backend mine = backend.is_cuda() ? Backend::cuda(world->local_rank() % Backend::cuda_devices()) : backend;
  return mine.with_ranks(world);
}

bool load_command_case(const std::string& case_file, const std::vector<std::string>& overrides,
                       const std::string& backend_name, Case& c, Backend& backend, const std::string& decomposition) {
  try {
    const auto world = Communicator::world();
    c = load_case(case_file, overrides);
    c.ranks = world->size();  // `auto` picks the solver for them (solver/registry.hpp)
    plan_pressure(c);  // refuses a solver the registry does not know, or one that cannot take the grid
    if (!decomposition.empty()) c.decomposition = Decomposition::parse_dims(decomposition);
    backend = on_the_ranks(Backend::from_name(backend_name.empty() ? c.backend : backend_name));
    if (!world->alone()) {
      decompose(c, *world);  // refuses a process grid that does not fit the grid
    } else if (!decomposition.empty() && c.decomposition != std::array<int, 2>{1, 1}) {
      throw CaseError("--decomposition " + decomposition + ": this run has one rank (start it with mpirun -np " +
                      std::to_string(c.decomposition[0] * c.decomposition[1]) + ")");
    }
    return true;
  } catch (const std::exception& e) {
    print_error(e.what());
    return false;
  }
}

int report_failure(const std::exception& e) {
  print_error(e.what());
  return dynamic_cast<const CaseError*>(&e) ? 2 : 1;
}

int start_command_run(Run& run) {
  try {
    run.start();
    return 0;
  } catch (const std::exception& e) {
    // A run that did not start was refused, whatever stopped it (a bad checkpoint, a file too
    // short to continue, a file size limit that its first records meet): it leaves nothing.
    run.abandon_start();
    print_error(e.what());
    return 2;
  }
}

namespace {

// Log lines to stdout or stderr that never take the run down with them: SIGPIPE is ignored
// (tools/main.cpp), so a reader that went away (`bouss run ... | head -n 1`) or a closed
// terminal makes a write fail with EPIPE or EIO, and from then on this sink drops its lines
// while the run goes on (docs/runs.md, "When the output stream closes").
class ClosableStreamSink final : public spdlog::sinks::base_sink<std::mutex> {
 public:
  explicit ClosableStreamSink(std::FILE* stream) : stream_(stream) {}

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    if (closed_) return;
    spdlog::memory_buf_t line;
    formatter_->format(msg, line);
    if (std::fwrite(line.data(), 1, line.size(), stream_) != line.size() || std::fflush(stream_) != 0) closed_ = true;
  }
  void flush_() override {
    if (!closed_ && std::fflush(stream_) != 0) closed_ = true;
  }

 private:
  std::FILE* stream_;
  bool closed_ = false;
};

}  // namespace

void configure_logging(bool to_stderr) {
  auto sink = std::make_shared<ClosableStreamSink>(to_stderr ? stderr : stdout);
  spdlog::set_default_logger(std::make_shared<spdlog::logger>("bouss", std::move(sink)));
  spdlog::set_pattern("[%H:%M:%S] %v");
  // Under several ranks the first logs for all; the others say only errors.
  if (Communicator::world()->rank() != 0) spdlog::set_level(spdlog::level::err);
}

namespace {
const char* units_name(Units u) {
  switch (u) {
    case Units::dimensional: return "dimensional";
    case Units::diffusive: return "diffusive (time H^2/kappa)";
    case Units::free_fall: return "free-fall (time H/U, U = sqrt(alpha g dT H))";
    case Units::buoyancy: return "buoyancy (length h = H/2, time h/u_b, u_b = sqrt(g' h))";
  }
  return "?";
}
}  // namespace

void log_case_summary(const Case& c, const Backend& backend) {
  spdlog::info("bouss {}: case \"{}\" from {}", BOUSS_VERSION, c.name, c.source);
  spdlog::info("grid {} x {} x {} on [{}, {}] x [{}, {}] x [{}, {}]", c.n[0], c.n[1], c.n[2], c.extent[0][0],
               c.extent[0][1], c.extent[1][0], c.extent[1][1], c.extent[2][0], c.extent[2][1]);
  for (int a = 0; a < 3; ++a) {
    if (!c.stretched(a)) continue;
    const std::vector<double>& f = c.axis_faces[a];
    const StretchRatio r = largest_stretch_ratio(f, c.periodic(a));
    double thinnest = f[1] - f[0], thickest = thinnest;
    for (std::size_t k = 1; k + 1 < f.size(); ++k) {
      thinnest = std::min(thinnest, f[k + 1] - f[k]);
      thickest = std::max(thickest, f[k + 1] - f[k]);
    }
    spdlog::info("{} stretched ({}): cells {:.4g} to {:.4g} wide, adjacent ratio at most {:.3f}", "xyz"[a],
                 c.stretching[a], thinnest, thickest, r.ratio);
  }
  if (c.physics.rayleigh)
    spdlog::info("Ra = {:g}, Pr = {:g} in {} units -> nu = {:.6g}, kappa = {:.6g}, alpha g = {:.6g}",
                 *c.physics.rayleigh, *c.physics.prandtl, units_name(c.physics.units), c.physics.nu,
                 c.physics.kappa, c.physics.buoyancy);
  else if (c.physics.units == Units::buoyancy)
    spdlog::info("{} = {:g}, Sc = {:g}, g' = {:g} in {} units -> nu = {:.6g}, kappa = {:.6g}, alpha g = {:.6g}",
                 c.physics.grashof ? "Gr" : "Re", c.physics.grashof ? *c.physics.grashof : *c.physics.reynolds,
                 *c.physics.schmidt, *c.physics.reduced_gravity, units_name(c.physics.units), c.physics.nu,
                 c.physics.kappa, c.physics.buoyancy);
  else
    spdlog::info("nu = {:g}, kappa = {:g}, alpha g = {:g} (dimensional)", c.physics.nu, c.physics.kappa,
                 c.physics.buoyancy);
  spdlog::info("backend {}", backend.describe());
  const Communicator& ranks = backend.ranks();
  if (!ranks.alone()) {
    const Decomposition d = decompose(c, ranks);
    spdlog::info("{} ranks, process grid {} (x by y; rank 0's block {} x {} x {} cells)", ranks.size(), d.describe(),
                 d.n[0], d.n[1], d.n[2]);
    spdlog::info("checkpoints: {}; output: {}",
                 ranks_write_one_file(ranks)
                     ? "every rank writes and reads its own block (parallel NetCDF)"
                     : "gathered onto rank 0, which writes them (this build has no parallel NetCDF, or MPI's threads "
                       "are not serialized); every rank reads its own block",
                 ranks_write_one_file(ranks)
                     ? "every rank writes its own block of each record (parallel NetCDF)"
                     : "through rank 0, which gathers each slab (this build has no parallel NetCDF, or MPI lacks "
                       "MPI_THREAD_MULTIPLE)");
  }
}

void log_solver_summary(const Simulation& sim) {
  spdlog::info("pressure: {}", describe_pressure(sim.config(), sim.pressure_plan(), sim.backend()));
}

std::string json_escape(const std::string& s) {
  std::string out;
  for (char ch : s) {
    if (ch == '"' || ch == '\\') out += '\\';
    out += ch;
  }
  return out;
}

}  // namespace bouss
