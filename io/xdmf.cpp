// XDMF 2 description of a bouss NetCDF-4 output file: see io/xdmf.hpp and docs/output.md.
#include "io/xdmf.hpp"

#include <netcdf.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "config/fields.hpp"
#include "io/file_util.hpp"
#include "io/netcdf_attributes.hpp"

namespace bouss {
namespace {

namespace fs = std::filesystem;

// The centre and face dimensions (and coordinate variables) of each axis, x y z.
constexpr const char* kCentreName[3] = {"x", "y", "z"};
constexpr const char* kFaceName[3] = {"xf", "yf", "zf"};

// The cell-centred velocity components that form the vector, in x y z order: the output
// fields that average the faces (u_c, v_c, w_c).
std::vector<std::string> velocity_centred() {
  std::vector<std::string> names;
  for (const FieldInfo& f : field_table())
    if (f.mean_of) names.push_back(f.name);
  return names;
}

// A netCDF-4 variable as the HDF5 dataset that holds it.
struct Dataset {
  std::string name;                 // netCDF name
  std::string path;                 // HDF5 dataset inside the file: "/" + name (see hdf5_dataset_path)
  std::vector<std::string> dims;    // netCDF dimension names, C order
  std::vector<size_t> shape;        // dimension lengths, C order
  int precision = 8;                // bytes per value: 4 (float) or 8 (double)
};

// A field on the time records: (time, z|zf, y|yf, x|xf).
struct Field {
  Dataset data;
  int stagger = -1;  // the axis whose face dimension it has, -1 for cell centred
};

// Runs the netCDF calls of one file and closes it when done.
class NetcdfReadOnly {
 public:
  NetcdfReadOnly(const std::string& path, const std::function<void(const std::string&)>& fail) : fail_(fail) {
    const int status = nc_open(path.c_str(), NC_NOWRITE, &id_);
    if (status != NC_NOERR) {
      id_ = -1;
      fail_(std::string("cannot open it: ") + nc_strerror(status));
    }
  }
  ~NetcdfReadOnly() {
    if (id_ >= 0) nc_close(id_);
  }
  NetcdfReadOnly(const NetcdfReadOnly&) = delete;
  NetcdfReadOnly& operator=(const NetcdfReadOnly&) = delete;
  int id() const { return id_; }

  // Checks a netCDF status; `what` says what was being read.
  void check(int status, const std::string& what) const {
    if (status != NC_NOERR) fail_("cannot read " + what + ": " + nc_strerror(status));
  }

 private:
  int id_ = -1;
  std::function<void(const std::string&)> fail_;
};

// netCDF-4 stores a variable as the HDF5 dataset of its own name, except a variable that
// has the name of a dimension without being that dimension's coordinate variable: that one
// is renamed "_nc4_non_coord_NAME" (libsrc4/nc4hdf.c), because the dimension's scale holds
// the name.
std::string hdf5_dataset_path(int ncid, const std::string& name, const std::vector<int>& dimids) {
  int dimid = -1;
  if (nc_inq_dimid(ncid, name.c_str(), &dimid) == NC_NOERR && !(dimids.size() == 1 && dimids[0] == dimid))
    return "/_nc4_non_coord_" + name;
  return "/" + name;
}

std::string xml_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

// Text inside an XML comment, which may not hold "--".
std::string xml_comment(std::string s) {
  for (size_t at = s.find("--"); at != std::string::npos; at = s.find("--", at)) s.replace(at, 2, "- -");
  return "<!-- " + s + " -->";
}

std::string join(const std::vector<size_t>& v) {
  std::string s;
  for (size_t x : v) s += (s.empty() ? "" : " ") + std::to_string(x);
  return s;
}

// Round-trips a double exactly (17 significant digits).
std::string exact(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

// Writes the XML with two-space indentation.
class XmlOut {
 public:
  void line(const std::string& text) { os_ << std::string(2 * depth_, ' ') << text << '\n'; }
  void open(const std::string& tag) {
    line(tag);
    ++depth_;
  }
  void close(const std::string& tag) {
    --depth_;
    line(tag);
  }
  std::string str() const { return os_.str(); }

 private:
  std::ostringstream os_;
  int depth_ = 0;
};

std::string number_type(int precision) {
  return "NumberType=\"Float\" Precision=\"" + std::to_string(precision) + "\"";
}

// A whole dataset: file:/dataset, with its full shape (XDMF readers check it).
void whole_dataset(XmlOut& x, const std::string& file, const Dataset& d) {
  x.line("<DataItem Dimensions=\"" + join(d.shape) + "\" " + number_type(d.precision) + " Format=\"HDF\">" +
         xml_escape(file) + ":" + xml_escape(d.path) + "</DataItem>");
}

// One record of a field, shifted by `offset` along the field's axis `axis` (for the upper
// face of each cell), `count` values along z y x: XDMF's HyperSlab, whose first child
// holds start, stride and count for the four dimensions (time first).
void record_slab(XmlOut& x, const std::string& file, const Field& f, size_t record, int axis, size_t offset,
                 const std::vector<size_t>& count) {
  std::vector<size_t> start{record, 0, 0, 0};
  if (axis >= 0) start[3 - axis] = offset;
  const std::vector<size_t> stride{1, 1, 1, 1};
  std::vector<size_t> count4{1};
  count4.insert(count4.end(), count.begin(), count.end());
  x.open("<DataItem ItemType=\"HyperSlab\" Dimensions=\"" + join(count) + "\" " + number_type(f.data.precision) + ">");
  x.line("<DataItem Dimensions=\"3 4\" NumberType=\"UInt\" Format=\"XML\">" + join(start) + "  " + join(stride) +
         "  " + join(count4) + "</DataItem>");
  whole_dataset(x, file, f.data);
  x.close("</DataItem>");
}

// The cell value of `f` at `record`: its record, or for a face field the mean of the two
// faces of each cell along its staggered axis.
void cell_value(XmlOut& x, const std::string& file, const Field& f, size_t record, const std::vector<size_t>& cells) {
  if (f.stagger < 0) {
    record_slab(x, file, f, record, -1, 0, cells);
    return;
  }
  x.open("<DataItem ItemType=\"Function\" Function=\"0.5 * ($0 + $1)\" Dimensions=\"" + join(cells) + "\" " +
         number_type(f.data.precision) + ">");
  record_slab(x, file, f, record, f.stagger, 0, cells);  // lower face of each cell
  record_slab(x, file, f, record, f.stagger, 1, cells);  // upper face
  x.close("</DataItem>");
}

}  // namespace

std::string xdmf_path_for(const std::string& netcdf_path) { return netcdf_path + ".xdmf2"; }

void write_xdmf(const std::string& netcdf_path, const std::string& xdmf_path) {
  auto fail = [&](const std::string& reason) {
    throw std::runtime_error("XDMF for " + netcdf_path + ": " + reason);
  };
  if (xdmf_path.empty()) fail("empty XDMF file name");

  // The NetCDF file as the XDMF file's folder sees it.
  const fs::path nc_abs = fs::absolute(netcdf_path).lexically_normal();
  const fs::path xdmf_abs = fs::absolute(xdmf_path).lexically_normal();
  fs::path relative = nc_abs.lexically_relative(xdmf_abs.parent_path());
  const std::string file = relative.empty() ? nc_abs.string() : relative.string();
  // XDMF separates the file from the dataset at the first ':'.
  if (file.find(':') != std::string::npos) fail("its path holds ':', which XDMF takes for the end of the file name");

  NetcdfReadOnly nc(netcdf_path, fail);
  const int id = nc.id();
  int format = 0;
  nc.check(nc_inq_format(id, &format), "its format");
  if (format != NC_FORMAT_NETCDF4 && format != NC_FORMAT_NETCDF4_CLASSIC)
    fail("it is not a NetCDF-4 (HDF5) file; XDMF points into HDF5 datasets");

  auto dim_length = [&](const char* name) -> std::optional<size_t> {
    int dimid = -1;
    size_t len = 0;
    if (nc_inq_dimid(id, name, &dimid) != NC_NOERR) return std::nullopt;
    nc.check(nc_inq_dimlen(id, dimid, &len), std::string("the length of dimension ") + name);
    return len;
  };
  auto dataset = [&](int varid) {
    char name[NC_MAX_NAME + 1] = {};
    nc_type type = NC_NAT;
    int ndims = 0;
    int dimids[NC_MAX_VAR_DIMS];
    nc.check(nc_inq_var(id, varid, name, &type, &ndims, dimids, nullptr), "variable " + std::to_string(varid));
    Dataset d;
    d.name = name;
    d.precision = type == NC_FLOAT ? 4 : type == NC_DOUBLE ? 8 : 0;
    for (int k = 0; k < ndims; ++k) {
      char dn[NC_MAX_NAME + 1] = {};
      size_t len = 0;
      nc.check(nc_inq_dimname(id, dimids[k], dn), "the dimensions of " + d.name);
      nc.check(nc_inq_dimlen(id, dimids[k], &len), "the dimensions of " + d.name);
      d.dims.push_back(dn);
      d.shape.push_back(len);
    }
    d.path = hdf5_dataset_path(id, d.name, std::vector<int>(dimids, dimids + ndims));
    return d;
  };

  // Records and their times.
  const std::optional<size_t> records = dim_length("time");
  int time_id = -1;
  if ((!records || nc_inq_varid(id, "time", &time_id) != NC_NOERR) && dim_length("profile_time"))
    fail("it holds profiles alone (profile_time), and XDMF describes fields on the grid; draw them with "
         "`bouss plot FILE --profiles` or read them with xarray");
  if (!records || nc_inq_varid(id, "time", &time_id) != NC_NOERR)
    fail("it has no time dimension and variable (it is not a bouss output file)");
  if (*records == 0) fail("it holds no snapshot yet");
  std::vector<double> times(*records);
  nc.check(nc_get_var_double(id, time_id, times.data()), "time");

  // Coordinates: the faces are the nodes of the cells; the centres must be there too.
  std::array<Dataset, 3> faces;
  std::array<size_t, 3> n{};
  auto coordinate = [&](const char* name) {
    int varid = -1;
    if (nc_inq_varid(id, name, &varid) != NC_NOERR || !dim_length(name))
      fail(std::string("it has no coordinate variable ") + name + " on a dimension " + name);
    return varid;
  };
  for (int a = 0; a < 3; ++a) {
    coordinate(kCentreName[a]);
    n[a] = *dim_length(kCentreName[a]);
    faces[a] = dataset(coordinate(kFaceName[a]));
    if (faces[a].shape != std::vector<size_t>{n[a] + 1} || faces[a].precision == 0)
      fail(std::string("its face coordinate ") + kFaceName[a] + " is not a float or double variable of " +
           std::to_string(n[a] + 1) + " values (" + kCentreName[a] + " has " + std::to_string(n[a]) + ")");
  }
  const std::vector<size_t> cells{n[2], n[1], n[0]};  // z y x

  // Fields: (time, z|zf, y|yf, x|xf), float or double, at most one face dimension.
  int nvars = 0;
  nc.check(nc_inq_nvars(id, &nvars), "its variables");
  std::vector<Field> fields;
  std::vector<std::string> not_shown;
  // An averaged stream's time bounds (time_bnds): the interval of each record, no field. Its
  // moments (T_variance, ...) are cell-centred fields like T.
  const std::string time_bounds = text_attribute(id, time_id, "bounds");
  for (int v = 0; v < nvars; ++v) {
    Dataset d = dataset(v);
    // Not on the records, or a snapshot scalar on time alone (step): not a field.
    if (d.dims.size() < 2 || d.dims[0] != "time" || d.name == time_bounds) continue;
    int stagger = -1, faces_seen = 0;
    bool on_grid = d.dims.size() == 4;
    for (int a = 0; on_grid && a < 3; ++a) {
      const std::string& dim = d.dims[3 - a];
      if (dim == kFaceName[a]) {
        stagger = a;
        ++faces_seen;
      } else if (dim != kCentreName[a]) {
        on_grid = false;
      }
    }
    if (!on_grid || faces_seen > 1 || d.precision == 0) {
      std::string dims;
      for (const auto& s : d.dims) dims += (dims.empty() ? "" : ", ") + s;
      not_shown.push_back(d.name + "(" + dims + ")");
      continue;
    }
    // netCDF gives every variable on time the dimension's length, while its HDF5 dataset
    // ends at the last record written to it; bouss writes every field at every record.
    fields.push_back({std::move(d), stagger});
  }

  // What goes on the cells: cell-centred fields under their names, face fields F as F_c
  // (unless the file has its own F_c); u_c, v_c, w_c together become the vector.
  std::map<std::string, const Field*> on_cells;
  std::vector<std::string> order;
  for (const Field& f : fields)
    if (f.stagger < 0 && on_cells.emplace(f.data.name, &f).second) order.push_back(f.data.name);
  for (const Field& f : fields)
    if (f.stagger >= 0 && on_cells.emplace(f.data.name + "_c", &f).second) order.push_back(f.data.name + "_c");
  bool velocity = true;
  const std::vector<std::string> components = velocity_centred();
  for (const auto& c : components) velocity = velocity && on_cells.count(c);

  XmlOut x;
  x.line("<?xml version=\"1.0\" ?>");
  x.line("<!DOCTYPE Xdmf SYSTEM \"Xdmf.dtd\" []>");
  x.line(xml_comment("Written by bouss (io/xdmf.cpp), docs/output.md. XDMF 2: ParaView opens it with its XDMF Reader; "
                     "its Xdmf3 readers skip HyperSlab and Function items."));
  x.line(xml_comment("One grid of the cells per record, nodes on the faces xf, yf, zf; a face field F shows as F_c, "
                     "the mean of the two faces of each cell; u_c, v_c, w_c as the vector velocity."));
  for (const auto& s : not_shown) x.line(xml_comment("Not shown (not a field on the cells): " + xml_escape(s)));
  x.open("<Xdmf Version=\"2.0\">");
  x.open("<Domain>");
  x.open("<Grid Name=\"bouss\" GridType=\"Collection\" CollectionType=\"Temporal\">");
  for (size_t r = 0; r < *records; ++r) {
    x.open("<Grid Name=\"cells\" GridType=\"Uniform\">");
    x.line("<Time Value=\"" + exact(times[r]) + "\"/>");
    x.line("<Topology TopologyType=\"3DRectMesh\" Dimensions=\"" + join({n[2] + 1, n[1] + 1, n[0] + 1}) + "\"/>");
    x.open("<Geometry GeometryType=\"VXVYVZ\">");
    for (int a = 0; a < 3; ++a) whole_dataset(x, file, faces[a]);
    x.close("</Geometry>");
    for (const auto& name : order) {
      const bool component =
          velocity && std::find(components.begin(), components.end(), name) != components.end();
      if (component) continue;
      x.open("<Attribute Name=\"" + xml_escape(name) + "\" AttributeType=\"Scalar\" Center=\"Cell\">");
      cell_value(x, file, *on_cells.at(name), r, cells);
      x.close("</Attribute>");
    }
    if (velocity) {
      int precision = 4;
      for (const auto& c : components) precision = std::max(precision, on_cells.at(c)->data.precision);
      std::vector<size_t> vec = cells;
      vec.push_back(3);
      x.open("<Attribute Name=\"velocity\" AttributeType=\"Vector\" Center=\"Cell\">");
      x.open("<DataItem ItemType=\"Function\" Function=\"JOIN($0, $1, $2)\" Dimensions=\"" + join(vec) + "\" " +
             number_type(precision) + ">");
      for (const auto& c : components) cell_value(x, file, *on_cells.at(c), r, cells);
      x.close("</DataItem>");
      x.close("</Attribute>");
    }
    x.close("</Grid>");
  }
  x.close("</Grid>");
  x.close("</Domain>");
  x.close("</Xdmf>");

  // Under a temporary name, then into place.
  const std::string temporary = partial_path(xdmf_path);
  {
    std::ofstream out(temporary, std::ios::trunc);
    if (!out) fail("cannot create " + temporary + ": " + std::strerror(errno));
    out << x.str();
    out.close();
    if (!out) {
      const int err = errno;
      std::remove(temporary.c_str());
      fail("cannot write " + temporary + ": " + std::strerror(err));
    }
  }
  try {
    fsync_file(temporary);
    replace_file(temporary, xdmf_path);
  } catch (const std::runtime_error& e) {
    std::remove(temporary.c_str());
    fail(e.what());
  }
}

}  // namespace bouss
