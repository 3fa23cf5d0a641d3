// The validated description of one run: what a case file says, after checking.
// config/case_parser.cpp builds it from JSON; nothing below io/ reads JSON.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "config/fields.hpp"
#include "config/precision.hpp"

namespace bouss {

// One line, already formatted as "FILE: /json/path: what was expected, got X".
// Thrown for every bad input; the CLI prints what() and exits with code 2.
class CaseError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class VelocityBC { periodic, no_slip, free_slip };
// conducting: fixed at the conduction profile, linear in z between the two plates' values.
enum class TemperatureBC { periodic, fixed, insulating, conducting };

// Physical condition on one face of the box. Faces are numbered 2*axis + side
// (side 0 = low, 1 = high): x_lo, x_hi, y_lo, y_hi, z_lo, z_hi.
struct FaceCondition {
  VelocityBC velocity = VelocityBC::periodic;
  TemperatureBC temperature = TemperatureBC::periodic;
  double temperature_value = 0.0;  // used when temperature == fixed
  bool periodic() const { return velocity == VelocityBC::periodic; }
};

// dimensional: the case's own; diffusive, free_fall: the Rayleigh form's; buoyancy: the lock
// exchange's Grashof form (length the half depth h, time h / sqrt(g' h)).
enum class Units { dimensional, diffusive, free_fall, buoyancy };

struct PhysicsParams {
  // What the case gave, for provenance and the log.
  Units units = Units::dimensional;
  std::optional<double> rayleigh, prandtl;  // the Rayleigh form
  // The Grashof form: grashof or reynolds (the other unset), the Schmidt number (given as
  // "schmidt" or "prandtl") and the reduced gravity g' (its default filled in).
  std::optional<double> grashof, reynolds, schmidt, reduced_gravity;
  // What the solver uses (always set after parsing, derived from Ra/Pr or Gr/Sc when given:
  // see config/units.hpp).
  double nu = 0.0;        // kinematic viscosity
  double kappa = 0.0;     // thermal diffusivity
  double buoyancy = 0.0;  // alpha * g: acceleration per unit temperature along +z
  double reference_temperature = 0.0;  // T_ref in b_T (T - T_ref)
};

// lock: the two fluids of a lock exchange side by side across x, a tanh step between them.
enum class TemperatureProfile { uniform, linear, conduction, lock };
enum class PerturbationShape { random, mode };

// A state read from another run's file (docs/case_file.md, initial.from): its fields carried
// onto this case's grid (grid/remap.hpp) and the velocity projected.
struct InitialFromFile {
  std::string path;
  long record = -1;            // counted from the end when negative
  bool continue_time = false;  // the run starts at the record's time (else t = 0); step 0 either way
  // Filled in by the run once the file is read (for the outputs' provenance).
  double source_time = 0;
  long source_record = 0;
};

struct InitialCondition {
  std::optional<InitialFromFile> from;  // the state of a file instead of the profile below
  TemperatureProfile profile = TemperatureProfile::conduction;
  double value = 0.0;                 // uniform
  double bottom = 0.0, top = 0.0;     // linear: T at z0 and z1 (conduction: from the plates)
  // lock: T = (left + right)/2 + (left - right)/2 tanh((position - x) / thickness)
  double left = 0.0, right = 0.0, position = 0.0, thickness = 0.0;
  double perturbation_amplitude = 0.0;
  // random: uniform noise in [-A, A] added to the interior T (seeded);
  // mode: A sin(pi (z - z0)/H) cos(2 pi mode[0] (x - x0)/Lx) cos(2 pi mode[1] (y - y0)/Ly).
  PerturbationShape perturbation_shape = PerturbationShape::random;
  std::uint64_t seed = 1;
  std::array<double, 2> mode{1.0, 0.0};  // wavelengths across the box in x and y
};

struct TimeParams {
  std::optional<std::int64_t> steps;  // at most this many steps
  std::optional<double> end;          // stop at this time (the last step lands on it)
  double cfl = 0.5;                   // advective Courant number
  std::optional<double> dt;           // fixed step, overrides CFL and diffusive limits
  // Steps are shortened to land on every output, average and checkpoint time of a stream or
  // checkpoint with a time interval, as on `end` (false: records at the first step past it).
  bool land_on_outputs = true;
};

struct PressureParams {
  std::string solver = "auto";  // a solver of the registry, or auto (solver/registry.hpp, model/pressure_plan.hpp)
  double tolerance = 1e-8;  // relative: max|residual| <= tolerance * max|rhs|
  int max_cycles = 50;
  int pre_sweeps = 2;
  int post_sweeps = 2;
  double omega = 1.25;           // over-relaxation of the red-black smoother
  bool fmg = false;              // full-multigrid start on each solve's defect
  // An iterative solver's start: the previous step's pressure ("previous") or its linear
  // extrapolation in time from the last two steps' ("extrapolated").
  std::string first_guess = "extrapolated";
  std::optional<bool> mixed_precision;  // fp32 V-cycles in fp64 defect correction; default: on CUDA
  bool cuda_graphs = true;       // replay the V-cycle's (and a step of fixed passes') device launches as CUDA graphs
  // Steps between the residual checks of a solver that can solve in fixed passes (fft; the
  // multigrid with every level on the device): between checks it repeats the last checked
  // solve's pass count and reads nothing back. Unset: the solver's default
  // (SolverType::check_interval, solver/registry.hpp).
  std::optional<int> check_interval;
  std::optional<long> cpu_coarse_cells;  // levels up to this many cells on the host; default measured
  // Under several ranks: multigrid levels whose blocks would be narrower than this many cells
  // along a cut axis are gathered onto rank 0; unset: solver/multigrid/multigrid.hpp's default.
  std::optional<int> agglomerate_below;
  int max_failures = 3;  // solves in a row that stop at max_cycles unconverged before the run fails
};

// The plane of cells a stream writes (docs/output.md, "Output streams"), or the whole domain.
struct OutputRegion {
  int axis = -1;            // -1: the whole domain; 0, 1, 2: the plane of cells across x, y or z
  double coordinate = 0;    // the plane as the case gave it
  int index = 0;            // the cell that holds it (the upper of two when it lies on a face)
  bool whole() const { return axis < 0; }
};

// HDF5's deflate (zlib) with the shuffle filter on a stream's fields and profiles, and
// optionally NetCDF's quantization (nc_def_var_quantize, GranularBR) before it.
struct OutputCompression {
  int deflate = 0;  // zlib level 1..9; 0: stored uncompressed
  bool shuffle = true;
  std::optional<int> significant_digits;  // quantize to this many significant decimal digits
  bool enabled() const { return deflate > 0; }
};

// A stream of time averages (docs/output.md, "Averaged records"): each record holds the means
// of its fields and profiles over the interval since the last record, sampled every
// `every_steps` steps on the device, and the covariances of the named moments.
struct OutputAverage {
  bool enabled = false;
  int every_steps = 1;
  // "a*b" with a, b cell-centred fields (config/fields.hpp moment_names): the covariance of a
  // and b over each interval, <a b> - <a> <b> (a variance for a == b).
  std::vector<std::string> moments;
};

// One output stream: a file written on its own schedule with its own contents. The case's
// "output" is one stream (an object) or a list of them.
struct OutputStream {
  std::string file;
  std::optional<double> interval;              // simulation time between records
  std::optional<std::int64_t> interval_steps;  // steps between records
  // Snapshot fields: T u v w p on their own grid locations, and u_c v_c w_c (the mean of
  // each cell's two faces, on the cell centres).
  std::vector<std::string> fields = {"T", "u", "v", "w", "p"};
  // Horizontally averaged profiles (physics/profiles.hpp), on their own record dimension.
  std::vector<std::string> profiles;
  Precision precision = Precision::double_precision;  // of the fields in the file
  OutputRegion region;
  OutputCompression compression;
  bool diagnostics = false;  // this file holds the run's diagnostics series
  OutputAverage average;     // time averages instead of snapshots
};

struct OutputParams {
  std::vector<OutputStream> streams;  // none: the run writes no file
  std::int64_t diagnostics_interval_steps = 10;  // steps between records of the diagnostics series
  // The stream that holds the diagnostics series, or null.
  const OutputStream* series_stream() const {
    for (const OutputStream& s : streams)
      if (s.diagnostics) return &s;
    return nullptr;
  }
};

// When and where checkpoints are written (everything the step needs to continue bit for
// bit: see run/run.hpp). Files are STEM.checkpoint.<step>.nc.
struct CheckpointParams {
  std::optional<double> interval;              // simulation time between checkpoints
  std::optional<std::int64_t> interval_steps;  // steps between checkpoints
  std::string file;                            // the stem; "" = the output file's path without ".nc"
  int keep = 2;                                // a run keeps the last `keep` checkpoints it wrote
  bool enabled() const { return interval || interval_steps; }
};

struct Case {
  std::string source;     // the file it came from (for messages)
  std::string json_text;  // the case after --set overrides, stored in the output for provenance
  std::string name;
  std::string description;
  std::array<int, 3> n{};                    // cells per axis
  std::array<std::array<double, 2>, 3> extent{};  // [axis][lo, hi]
  // The face positions of axis a (n[a] + 1, from extent[a][0] to extent[a][1]) when /grid/x,
  // /grid/y or /grid/z stretches it; empty for a uniform axis.
  std::array<std::vector<double>, 3> axis_faces;
  std::array<std::string, 3> stretching;  // how /grid/<axis> gave them, for the log and the output
  PhysicsParams physics;
  std::array<FaceCondition, 6> faces{};  // x_lo, x_hi, y_lo, y_hi, z_lo, z_hi
  InitialCondition initial;
  TimeParams time;
  PressureParams pressure;
  Precision precision = Precision::double_precision;
  OutputParams output;
  CheckpointParams checkpoint;
  std::string backend = "auto";  // auto | cuda | cpu
  // The run may replace what an earlier run left under its names (its output files, their
  // XDMF sidecars, the checkpoints of its stem); --overwrite says the same (run/run_files.hpp).
  bool overwrite = false;
  // The process grid a run under mpirun cuts x and y into (--decomposition PXxPY; not a case
  // file key); {0, 0}: chosen for the pressure solver and the grid (decompose,
  // model/simulation.hpp).
  std::array<int, 2> decomposition{0, 0};
  int ranks = 1;  // the ranks the run holds (set by the commands under mpirun: `auto`'s solver, the output's mpi_ranks)
  // The run's identity (set by the run driver: io/run_identity.hpp), written into its output
  // files; "" outside a run.
  std::string run_id;

  bool periodic(int axis) const { return faces[2 * axis].periodic(); }
  bool stretched(int axis) const { return !axis_faces[axis].empty(); }
  double length(int axis) const { return extent[axis][1] - extent[axis][0]; }
  // The mean spacing (length / n): a stretched axis's cells are face(i + 1) - face(i) wide.
  double spacing(int axis) const { return length(axis) / n[axis]; }
  // Face i (0..n) and the centre of cell i of an axis, uniform or stretched.
  double face(int axis, int i) const {
    if (stretched(axis)) return axis_faces[axis][std::size_t(i)];
    return i == n[axis] ? extent[axis][1] : extent[axis][0] + i * spacing(axis);
  }
  double centre(int axis, int i) const {
    return stretched(axis) ? 0.5 * (face(axis, i) + face(axis, i + 1)) : extent[axis][0] + (i + 0.5) * spacing(axis);
  }
};


// Reads, applies overrides ("key.path=JSON value", as from --set), validates completely.
// Throws CaseError with one line naming the file, the JSON path and what was expected.
Case load_case(const std::string& path, const std::vector<std::string>& overrides = {});
// The text of a case file, read with load_case's limits (at most 4 MiB; not a folder).
std::string read_case_text(const std::string& path);
// The --set overrides of `--output FILE` (after the case's own `overrides`; docs/runs.md,
// "The files of a run"): the first stream writes FILE; every other stream's file and an
// explicit checkpoint.file follow it: a name that starts with the first stream's stem (its
// file less ".nc") keeps the rest after FILE's stem (out/rb_profiles.nc -> mine_profiles.nc
// for --output mine.nc), any other goes beside FILE as FILESTEM_NAME (out/mid.nc ->
// mine_mid.nc). A case without output gets one stream writing FILE. (With the --set engine,
// in config/case_overrides.cpp.)
std::vector<std::string> output_file_overrides(const std::string& case_path, const std::vector<std::string>& overrides,
                                               const std::string& file);
// The --set overrides that make stream k of the case (after `overrides`) write files[k] (""
// leaves it), in the form of the case's "output" (one object, or a list).
std::vector<std::string> stream_file_overrides(const std::string& case_path, const std::vector<std::string>& overrides,
                                               const std::vector<std::string>& files);
// Same, from text already in memory (source names it in messages).
Case parse_case(const std::string& text, const std::string& source,
                const std::vector<std::string>& overrides = {});

// True when the side walls in x and y are periodic or insulating: they exchange no heat with
// the fluid, so in a steady state the plates' and the volume's Nusselt numbers agree and the
// exact relations of the dissipation rates hold.
inline bool side_walls_exchange_no_heat(const Case& c) {
  for (int f = 0; f < 4; ++f)
    if (c.faces[f].temperature != TemperatureBC::periodic && c.faces[f].temperature != TemperatureBC::insulating)
      return false;
  return true;
}

}  // namespace bouss
