#include "config/case_json.hpp"

namespace bouss {

namespace {

using ojson = nlohmann::ordered_json;

ojson face_json(const FaceCondition& f) {
  if (f.periodic()) return "periodic";
  ojson face;
  face["velocity"] = f.velocity == VelocityBC::no_slip ? "no_slip" : "free_slip";
  switch (f.temperature) {
    case TemperatureBC::fixed: face["temperature"] = {{"fixed", f.temperature_value}}; break;
    case TemperatureBC::insulating: face["temperature"] = "insulating"; break;
    case TemperatureBC::conducting: face["temperature"] = "conducting"; break;
    case TemperatureBC::periodic: break;
  }
  return face;
}

}  // namespace

ojson case_to_json(const Case& c) {
  ojson j;
  j["name"] = c.name;
  if (!c.description.empty()) j["description"] = c.description;
  j["grid"] = {{"n", c.n}, {"extent", c.extent}};
  for (int a = 0; a < 3; ++a)  // the faces themselves (exact in JSON's 17 digits)
    if (c.stretched(a)) j["grid"][std::string(1, "xyz"[a])] = c.axis_faces[a];

  ojson physics;
  if (c.physics.rayleigh) {
    physics["rayleigh"] = *c.physics.rayleigh;
    physics["prandtl"] = *c.physics.prandtl;
    physics["units"] = c.physics.units == Units::diffusive ? "diffusive" : "free_fall";
  } else if (c.physics.units == Units::buoyancy) {
    // The Schmidt number under its own key, whichever of "schmidt" and "prandtl" gave it.
    if (c.physics.grashof) physics["grashof"] = *c.physics.grashof;
    if (c.physics.reynolds) physics["reynolds"] = *c.physics.reynolds;
    physics["schmidt"] = *c.physics.schmidt;
    physics["reduced_gravity"] = *c.physics.reduced_gravity;
  } else {
    physics["nu"] = c.physics.nu;
    physics["kappa"] = c.physics.kappa;
    physics["buoyancy"] = c.physics.buoyancy;
  }
  physics["reference_temperature"] = c.physics.reference_temperature;
  j["physics"] = physics;

  const char* faces[] = {"x_lo", "x_hi", "y_lo", "y_hi", "z_lo", "z_hi"};
  ojson boundaries;
  for (int f = 0; f < 6; ++f) boundaries[faces[f]] = face_json(c.faces[f]);
  j["boundaries"] = boundaries;

  const InitialCondition& ic = c.initial;
  ojson temperature;
  switch (ic.profile) {
    case TemperatureProfile::uniform: temperature = {{"profile", "uniform"}, {"value", ic.value}}; break;
    case TemperatureProfile::linear:
      temperature = {{"profile", "linear"}, {"bottom", ic.bottom}, {"top", ic.top}};
      break;
    case TemperatureProfile::conduction: temperature = {{"profile", "conduction"}}; break;
    case TemperatureProfile::lock:
      temperature = {{"profile", "lock"}, {"left", ic.left}, {"right", ic.right}, {"position", ic.position},
                     {"thickness", ic.thickness}};
      break;
  }
  ojson perturbation = {{"amplitude", ic.perturbation_amplitude}, {"seed", ic.seed}};
  if (ic.perturbation_shape == PerturbationShape::mode) {
    perturbation["shape"] = "mode";
    perturbation["mode"] = ic.mode;
  } else {
    perturbation["shape"] = "random";
  }
  if (const auto& from = ic.from)  // the whole initial state from a file: no profile beside it
    j["initial"] = {{"from", from->path}, {"record", from->record}, {"continue_time", from->continue_time}};
  else
    j["initial"] = {{"temperature", temperature}, {"perturbation", perturbation}};

  ojson time;
  if (c.time.steps) time["steps"] = *c.time.steps;
  if (c.time.end) time["end"] = *c.time.end;
  time["cfl"] = c.time.cfl;
  if (c.time.dt) time["dt"] = *c.time.dt;
  time["land_on_outputs"] = c.time.land_on_outputs;
  j["time"] = time;

  const PressureParams& p = c.pressure;
  ojson pressure = {{"solver", p.solver},       {"tolerance", p.tolerance},     {"max_cycles", p.max_cycles},
                    {"pre_sweeps", p.pre_sweeps}, {"post_sweeps", p.post_sweeps}, {"omega", p.omega},
                    {"fmg", p.fmg},           {"first_guess", p.first_guess}};
  if (p.mixed_precision) pressure["mixed_precision"] = *p.mixed_precision;
  pressure["cuda_graphs"] = p.cuda_graphs;
  if (p.check_interval) pressure["check_interval"] = *p.check_interval;
  if (p.cpu_coarse_cells) pressure["cpu_coarse_cells"] = *p.cpu_coarse_cells;
  if (p.agglomerate_below) pressure["agglomerate_below"] = *p.agglomerate_below;
  pressure["max_failures"] = p.max_failures;
  j["pressure"] = pressure;
  j["precision"] = precision_name(c.precision);

  // Always the list form: one entry per stream, every default filled in.
  ojson output = ojson::array();
  for (const OutputStream& o : c.output.streams) {
    ojson stream = {{"file", o.file}};
    if (o.interval) stream["interval"] = *o.interval;
    if (o.interval_steps) stream["interval_steps"] = *o.interval_steps;
    stream["fields"] = o.fields;
    stream["profiles"] = o.profiles;
    stream["precision"] = type_name(o.precision);
    if (!o.region.whole()) stream["region"] = {{std::string(1, "xyz"[o.region.axis]), o.region.coordinate}};
    if (o.compression.enabled()) {
      ojson z = {{"deflate", o.compression.deflate}, {"shuffle", o.compression.shuffle}};
      if (o.compression.significant_digits) z["significant_digits"] = *o.compression.significant_digits;
      stream["compression"] = z;
    }
    stream["diagnostics"] = o.diagnostics;
    if (o.diagnostics) stream["diagnostics_interval_steps"] = c.output.diagnostics_interval_steps;
    if (o.average.enabled) stream["average"] = {{"every_steps", o.average.every_steps}, {"moments", o.average.moments}};
    output.push_back(stream);
  }
  j["output"] = output;

  if (c.checkpoint.enabled() || !c.checkpoint.file.empty()) {
    ojson checkpoint;
    if (c.checkpoint.interval) checkpoint["interval"] = *c.checkpoint.interval;
    if (c.checkpoint.interval_steps) checkpoint["interval_steps"] = *c.checkpoint.interval_steps;
    if (!c.checkpoint.file.empty()) checkpoint["file"] = c.checkpoint.file;
    checkpoint["keep"] = c.checkpoint.keep;
    j["checkpoint"] = checkpoint;
  }
  j["backend"] = c.backend;
  if (c.overwrite) j["overwrite"] = true;
  return j;
}

}  // namespace bouss
