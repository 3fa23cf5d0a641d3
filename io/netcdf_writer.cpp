// NetCDF-4 / CF-1.8 output: see io/netcdf_writer.hpp and docs/output.md.
#include "io/netcdf_writer.hpp"

#include <netcdf.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <netcdf>
#include <set>
#include <sstream>
#include <stdexcept>
#include <system_error>
#include <utility>

#if defined(__unix__) || defined(__APPLE__)
#include <fcntl.h>
#include <unistd.h>
#define BOUSS_HAVE_FSYNC 1
#endif

namespace bouss {
namespace {

namespace fs = std::filesystem;
using netCDF::NcDim;
using netCDF::NcFile;
using netCDF::NcVar;
using netCDF::exceptions::NcException;

#ifdef BOUSS_VERSION
#define BOUSS_STR2(x) #x
#define BOUSS_STR(x) BOUSS_STR2(x)
// BOUSS_VERSION may be given either as a string literal or as a bare token.
inline std::string version_string() {
  std::string v = BOUSS_STR(BOUSS_VERSION);
  if (v.size() >= 2 && v.front() == '"' && v.back() == '"') v = v.substr(1, v.size() - 2);
  return v;
}
#endif

std::string source_string() {
#ifdef BOUSS_VERSION
  return "bouss " + version_string();
#else
  return "bouss";
#endif
}

// One line describing a netCDF failure. NcException::what() carries several lines
// (C++ source file and line); the error code gives the library's own short message.
std::string nc_reason(const NcException& e) {
  if (e.errorCode() != 0) return nc_strerror(e.errorCode());
  std::string w = e.what();
  auto nl = w.find('\n');
  if (nl != std::string::npos) w.erase(nl);
  return w;
}

std::string utc_now_iso8601() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
#if defined(_WIN32)
  gmtime_s(&tm, &t);
#else
  gmtime_r(&t, &tm);
#endif
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

const char* axis_letter(int a) { return a == 0 ? "X" : a == 1 ? "Y" : "Z"; }
const char* axis_name(int a) { return a == 0 ? "x" : a == 1 ? "y" : "z"; }

// Per-field metadata: staggered axis (-1 for cell centred), long name, SI units.
struct FieldSpec {
  const char* name;
  int stagger;
  const char* long_name;
  const char* si_units;
  const char* location;
};

constexpr FieldSpec kFieldSpecs[] = {
    {"T", -1, "temperature", "K", "cell centre"},
    {"u", 0, "x velocity", "m s-1", "x face"},
    {"v", 1, "y velocity", "m s-1", "y face"},
    {"w", 2, "z velocity", "m s-1", "z face"},
    {"p", -1, "kinematic pressure (pressure / reference density)", "m2 s-2", "cell centre"},
};

const FieldSpec* find_field_spec(const std::string& name) {
  for (const auto& s : kFieldSpecs)
    if (name == s.name) return &s;
  return nullptr;
}

struct ScalarSpec {
  const char* name;
  const char* long_name;
  const char* si_units;
};

// Known diagnostics; anything else gets long_name = key with '_' -> ' ' and units "1".
constexpr ScalarSpec kScalarSpecs[] = {
    {"kinetic_energy", "volume-averaged kinetic energy per unit mass", "m2 s-2"},
    {"max_divergence", "maximum absolute velocity divergence", "s-1"},
    {"dt", "time step", "s"},
    {"step", "time step number", "1"},
    {"cfl", "advective Courant number", "1"},
    {"max_velocity", "maximum absolute face velocity component", "m s-1"},
    {"pressure_cycles", "multigrid V-cycles of the last pressure solve", "1"},
    {"nusselt_bottom", "Nusselt number through the bottom plate", "1"},
    {"nusselt_top", "Nusselt number through the top plate", "1"},
    {"nusselt_volume", "Nusselt number from the volume average, 1 + <w T> / (kappa dT / H)", "1"},
    {"growth_rate", "growth rate of the kinetic energy, d ln(KE) / dt / 2", "s-1"},
};

const char* units_system_name(Units u) {
  switch (u) {
    case Units::dimensional: return "dimensional";
    case Units::diffusive: return "diffusive";
    case Units::free_fall: return "free_fall";
  }
  return "unknown";
}

const char* units_note(Units u) {
  switch (u) {
    case Units::diffusive:
      return "diffusive units: length H, time H^2/kappa, temperature dT";
    case Units::free_fall:
      return "free-fall units: length H, time H/U with U = sqrt(alpha g dT H), temperature dT";
    case Units::dimensional: break;
  }
  return "";
}

}  // namespace

struct NetcdfWriter::Impl {
  struct Field {
    NcVar var;
    std::array<size_t, 3> n;  // nx_f, ny_f, nz_f
  };

  std::string path;     // final name
  std::string partial;  // path + ".partial"
  Units units = Units::dimensional;
  NcFile file;
  bool open = false;
  NcDim time_dim;
  NcVar time_var;
  std::map<std::string, Field> fields;
  std::vector<std::string> required_fields;  // output.fields, in case order
  std::map<std::string, NcVar> scalars;
  // The diagnostics series: its own unlimited dimension, written more often than snapshots.
  NcDim series_dim;
  NcVar series_time;
  std::map<std::string, NcVar> series;
  std::set<std::string> reserved;  // dimension, coordinate and field names

  ~Impl() {
    if (!open) return;
    // Abandoned: close quietly and discard the incomplete file; FILE stays as it was.
    try {
      file.close();
    } catch (...) {
    }
    open = false;
    std::remove(partial.c_str());
  }

  [[noreturn]] void fail(const std::string& reason) const {
    throw std::runtime_error("netCDF output " + path + ": " + reason);
  }

  bool dimensional() const { return units == Units::dimensional; }

  void put_units(const NcVar& v, const char* si_units) const {
    if (dimensional()) {
      v.putAtt("units", si_units);
    } else {
      v.putAtt("units", "1");
      v.putAtt("units_note", units_note(units));
    }
  }

  NcVar scalar_var(const std::string& key) {
    auto it = scalars.find(key);
    if (it != scalars.end()) return it->second;
    if (reserved.count(key) || series.count(key))
      fail("scalar '" + key + "' has the name of a dimension, coordinate, field or series variable");
    NcVar v = described_var(key, time_dim);
    scalars.emplace(key, v);
    return v;
  }

  NcVar series_var(const std::string& key) {
    auto it = series.find(key);
    if (it != series.end()) return it->second;
    if (reserved.count(key) || scalars.count(key))
      fail("series '" + key + "' has the name of a dimension, coordinate, field or snapshot variable");
    if (series.empty()) {
      series_dim = file.addDim("diagnostic_time");  // unlimited
      series_time = file.addVar("diagnostic_time", netCDF::ncDouble, series_dim);
      series_time.putAtt("long_name", "time of the diagnostics series");
      put_units(series_time, "s");
      reserved.insert("diagnostic_time");
    }
    NcVar v = described_var(key, series_dim);
    series.emplace(key, v);
    return v;
  }

  NcVar described_var(const std::string& key, const NcDim& dim) {
    NcVar v = file.addVar(key, netCDF::ncDouble, dim);
    const ScalarSpec* spec = nullptr;
    for (const auto& s : kScalarSpecs)
      if (key == s.name) spec = &s;
    std::string long_name = key;
    if (spec) {
      long_name = spec->long_name;
    } else {
      std::replace(long_name.begin(), long_name.end(), '_', ' ');
    }
    // Records written before this key first appeared read as missing.
    v.setFill(true, NC_FILL_DOUBLE);
    v.putAtt("long_name", long_name);
    put_units(v, spec ? spec->si_units : "1");
    return v;
  }
};

NetcdfWriter::NetcdfWriter(const std::string& path, const Case& c)
    : impl_(std::make_unique<Impl>()), path_(path) {
  Impl& m = *impl_;
  m.path = path;
  m.partial = path + ".partial";
  m.units = c.physics.units;
  if (path.empty()) m.fail("empty file name");

  // Check the configuration before touching the disk.
  for (int a = 0; a < 3; ++a) {
    if (c.n[a] < 1)
      m.fail(std::string("cell count along ") + axis_name(a) + " is " + std::to_string(c.n[a]) +
             ", expected at least 1");
  }
  for (const auto& f : c.output.fields) {
    if (!find_field_spec(f)) m.fail("unknown output field '" + f + "' (expected T, u, v, w or p)");
    if (std::count(c.output.fields.begin(), c.output.fields.end(), f) > 1)
      m.fail("output field '" + f + "' listed twice");
  }

  try {
    m.file.open(m.partial, NcFile::replace, NcFile::nc4);
  } catch (const NcException& e) {
    throw std::runtime_error("netCDF output " + path + ": cannot create " + m.partial + ": " +
                             nc_reason(e));
  }
  m.open = true;

  try {
    const bool dim = m.dimensional();
    NcFile& f = m.file;

    // Global attributes.
    f.putAtt("Conventions", "CF-1.8");
    f.putAtt("title", c.name);
    if (!c.description.empty()) f.putAtt("comment", c.description);
    f.putAtt("source", source_string());
    f.putAtt("history", utc_now_iso8601() + ": created by " + source_string() + " from " +
                            (c.source.empty() ? std::string("(unnamed case)") : c.source));
    f.putAtt("case_file", c.source);
    f.putAtt("case_json", c.json_text);
    f.putAtt("units_system", units_system_name(c.physics.units));
    f.putAtt("nu", netCDF::ncDouble, c.physics.nu);
    f.putAtt("kappa", netCDF::ncDouble, c.physics.kappa);
    f.putAtt("buoyancy", netCDF::ncDouble, c.physics.buoyancy);
    f.putAtt("reference_temperature", netCDF::ncDouble, c.physics.reference_temperature);
    if (c.physics.rayleigh) f.putAtt("rayleigh", netCDF::ncDouble, *c.physics.rayleigh);
    if (c.physics.prandtl) f.putAtt("prandtl", netCDF::ncDouble, *c.physics.prandtl);

    // Dimensions.
    m.time_dim = f.addDim("time");  // unlimited
    std::array<NcDim, 3> centre_dim, face_dim;
    for (int a = 0; a < 3; ++a) {
      centre_dim[a] = f.addDim(axis_name(a), static_cast<size_t>(c.n[a]));
      m.reserved.insert(axis_name(a));
    }
    for (int a = 0; a < 3; ++a) {
      face_dim[a] = f.addDim(std::string(axis_name(a)) + "f", static_cast<size_t>(c.n[a]) + 1);
      m.reserved.insert(std::string(axis_name(a)) + "f");
    }
    m.reserved.insert("time");

    // Time coordinate.
    m.time_var = f.addVar("time", netCDF::ncDouble, m.time_dim);
    m.time_var.putAtt("long_name", "time");
    if (dim) m.time_var.putAtt("standard_name", "time");
    m.time_var.putAtt("axis", "T");
    m.put_units(m.time_var, "s");

    // Spatial coordinates: centres and faces.
    static const char* std_names[3] = {"projection_x_coordinate", "projection_y_coordinate",
                                       "height"};
    std::array<NcVar, 3> centre_var, face_var;
    for (int a = 0; a < 3; ++a)
      centre_var[a] = f.addVar(axis_name(a), netCDF::ncDouble, centre_dim[a]);
    for (int a = 0; a < 3; ++a)
      face_var[a] = f.addVar(std::string(axis_name(a)) + "f", netCDF::ncDouble, face_dim[a]);
    for (int a = 0; a < 3; ++a) {
      const std::string an = axis_name(a);
      for (int s = 0; s < 2; ++s) {
        NcVar& v = s == 0 ? centre_var[a] : face_var[a];
        v.putAtt("long_name", an + (s == 0 ? " (cell centre)" : " (cell face)"));
        // CF ties standard names to canonical units, so they go only with SI lengths.
        if (dim) v.putAtt("standard_name", std_names[a]);
        m.put_units(v, "m");
        v.putAtt("axis", axis_letter(a));
        if (a == 2) v.putAtt("positive", "up");
        if (s == 1) v.putAtt("c_grid_axis_shift", netCDF::ncDouble, -0.5);
      }
    }

    // Data variables, one time record per chunk (or slabs of at most ~4 MiB).
    constexpr size_t kMaxChunkBytes = size_t(4) << 20;
    for (const auto& name : c.output.fields) {
      const FieldSpec& spec = *find_field_spec(name);
      std::array<size_t, 3> n;
      std::vector<NcDim> dims{m.time_dim};
      for (int a = 2; a >= 0; --a) {
        n[a] = static_cast<size_t>(c.n[a]) + (spec.stagger == a ? 1 : 0);
        dims.push_back(spec.stagger == a ? face_dim[a] : centre_dim[a]);
      }
      NcVar v = f.addVar(name, netCDF::ncDouble, dims);
      std::vector<size_t> chunk{1, n[2], n[1], n[0]};
      const size_t row = sizeof(double) * n[0], plane = row * n[1];
      if (plane * n[2] > kMaxChunkBytes) chunk[1] = std::max<size_t>(1, kMaxChunkBytes / plane);
      if (plane > kMaxChunkBytes) chunk[2] = std::max<size_t>(1, kMaxChunkBytes / row);
      v.setChunking(NcVar::nc_CHUNKED, chunk);
      v.putAtt("long_name", spec.long_name);
      m.put_units(v, spec.si_units);
      v.putAtt("grid_location", spec.location);
      m.fields.emplace(name, Impl::Field{v, n});
      m.required_fields.push_back(name);
      m.reserved.insert(name);
    }

    // Coordinate values (leaves define mode implicitly).
    for (int a = 0; a < 3; ++a) {
      const int na = c.n[a];
      const double lo = c.extent[a][0], hi = c.extent[a][1];
      const double h = (hi - lo) / na;
      std::vector<double> xc(na), xf(na + 1);
      for (int i = 0; i < na; ++i) xc[i] = lo + (i + 0.5) * h;
      for (int i = 0; i < na; ++i) xf[i] = lo + i * h;
      xf[na] = hi;
      centre_var[a].putVar(xc.data());
      face_var[a].putVar(xf.data());
    }
  } catch (const NcException& e) {
    m.fail("cannot set up " + m.partial + ": " + nc_reason(e));
  }
}

NetcdfWriter::~NetcdfWriter() = default;

void NetcdfWriter::write(double time, const std::vector<SnapshotField>& fields,
                         const std::map<std::string, double>& scalars) {
  Impl& m = *impl_;
  if (!m.open) m.fail("write after close()");

  // Validate everything first so that a bad call leaves no half-written record.
  std::set<std::string> given;
  for (const auto& sf : fields) {
    auto it = m.fields.find(sf.name);
    if (it == m.fields.end()) {
      std::string list;
      for (const auto& r : m.required_fields) list += (list.empty() ? "" : ", ") + r;
      m.fail("field '" + sf.name + "' is not among the output fields (" + list + ")");
    }
    if (!given.insert(sf.name).second) m.fail("field '" + sf.name + "' given twice");
    const auto& n = it->second.n;
    const size_t expect = n[0] * n[1] * n[2];
    if (sf.values.size() != expect) {
      std::ostringstream os;
      os << "field '" << sf.name << "' has " << sf.values.size() << " values, expected " << expect
         << " (" << n[0] << " x " << n[1] << " x " << n[2] << ")";
      m.fail(os.str());
    }
  }
  for (const auto& r : m.required_fields)
    if (!given.count(r)) m.fail("field '" + r + "' missing from record " + std::to_string(records_));
  for (const auto& kv : scalars)
    if (m.reserved.count(kv.first))
      m.fail("scalar '" + kv.first + "' has the name of a dimension, coordinate or field variable");

  const size_t rec = static_cast<size_t>(records_);
  try {
    // Define any new scalar series first (netCDF-4 re-enters define mode by itself).
    std::vector<std::pair<NcVar, double>> svars;
    for (const auto& kv : scalars) svars.emplace_back(m.scalar_var(kv.first), kv.second);

    m.time_var.putVar(std::vector<size_t>{rec}, std::vector<size_t>{1}, &time);
    for (const auto& sf : fields) {
      const auto& fld = m.fields.at(sf.name);
      fld.var.putVar(std::vector<size_t>{rec, 0, 0, 0},
                     std::vector<size_t>{1, fld.n[2], fld.n[1], fld.n[0]}, sf.values.data());
    }
    for (const auto& sv : svars)
      sv.first.putVar(std::vector<size_t>{rec}, std::vector<size_t>{1}, &sv.second);
  } catch (const NcException& e) {
    m.fail("cannot write record " + std::to_string(records_) + " to " + m.partial + ": " +
           nc_reason(e));
  }
  ++records_;
}

void NetcdfWriter::write_series(double time, const std::map<std::string, double>& values) {
  Impl& m = *impl_;
  if (!m.open) m.fail("write after close()");
  try {
    std::vector<std::pair<NcVar, double>> vars;
    for (const auto& kv : values) vars.emplace_back(m.series_var(kv.first), kv.second);
    if (vars.empty()) return;
    const std::vector<size_t> at{static_cast<size_t>(series_records_)}, one{1};
    m.series_time.putVar(at, one, &time);
    for (const auto& v : vars) v.first.putVar(at, one, &v.second);
  } catch (const NcException& e) {
    m.fail("cannot write diagnostics record " + std::to_string(series_records_) + " to " + m.partial + ": " +
           nc_reason(e));
  }
  ++series_records_;
}

void NetcdfWriter::close() {
  Impl& m = *impl_;
  if (!m.open) return;
  try {
    m.file.sync();
    m.file.close();
  } catch (const NcException& e) {
    // The file may be incomplete: drop it (the destructor path), leave FILE alone.
    try {
      m.file.close();
    } catch (...) {
    }
    m.open = false;
    std::remove(m.partial.c_str());
    m.fail("cannot finish " + m.partial + ": " + nc_reason(e));
  }
  m.open = false;
#ifdef BOUSS_HAVE_FSYNC
  // Make the data durable before it appears under the final name.
  int fd = ::open(m.partial.c_str(), O_RDONLY);
  if (fd >= 0) {
    ::fsync(fd);
    ::close(fd);
  }
#endif
  if (std::rename(m.partial.c_str(), m.path.c_str()) != 0) {
    const int err = errno;
    m.fail(std::string("cannot rename ") + m.partial + " to the final name: " +
           std::strerror(err) + " (the complete data is left in " + m.partial + ")");
  }
#ifdef BOUSS_HAVE_FSYNC
  fs::path dir = fs::path(m.path).parent_path();
  if (dir.empty()) dir = ".";
  int dfd = ::open(dir.c_str(), O_RDONLY);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
#endif
}

void check_output_writable(const std::string& path) {
  if (path.empty()) return;
  auto fail = [&](const std::string& reason) {
    throw std::runtime_error("output file " + path + " cannot be written: " + reason);
  };
  const fs::path p(path);
  std::error_code ec;
  const fs::path parent = p.parent_path();
  if (!parent.empty()) {
    fs::create_directories(parent, ec);
    if (ec) fail("cannot create folder " + parent.string() + ": " + ec.message());
    if (!fs::is_directory(parent, ec)) fail(parent.string() + " is not a folder");
  }
  if (fs::is_directory(p, ec)) fail("it is a folder");
  const std::string partial = path + ".partial";
  errno = 0;
  std::FILE* f = std::fopen(partial.c_str(), "wb");
  if (!f) fail(std::string("cannot create ") + partial + ": " + std::strerror(errno));
  std::fclose(f);
  std::remove(partial.c_str());
}

}  // namespace bouss
