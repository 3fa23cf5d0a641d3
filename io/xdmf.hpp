// An XDMF description of a bouss NetCDF-4 output file, for ParaView.
//
// ParaView 5.11 offers two readers for a .nc file and neither gives the picture: the
// NetCDF CAM reader (its first choice) shows an empty grid, and the NetCDF Reader shows one
// staggering at a time, so no velocity vector can be formed. The XDMF file written here
// points into the NetCDF-4 file's HDF5 datasets (a netCDF-4 variable T is the HDF5 dataset
// /T) and presents one grid per time record:
//
//   - the grid of the cells: its nodes are the cell faces (xf, yf, zf), so it covers the
//     whole domain, wall to wall, and every cell is a computational cell;
//   - every cell-centred field (T, p, ...) as cell data;
//   - every face field F (u on x faces, ...) as F_c, the mean of the two faces of each
//     cell along its staggered axis (what the simulation's u_c, v_c, w_c hold); a file's
//     own F_c takes precedence;
//   - u_c, v_c and w_c, when all three are there, as one cell vector, `velocity`.
//
// The means and the vector are XDMF functions (HyperSlab, Function, JOIN), which only
// ParaView's "XDMF Reader" (XDMF 2) evaluates; its Xdmf3 readers skip them ("Skipping
// unrecognized array type [None]"). The file is therefore XDMF 2 and is named FILE.xdmf2,
// the one extension ParaView gives to the XDMF Reader alone (.xdmf and .xmf go to
// "Xdmf3 Reader S" first). docs/output.md has what each reader was seen to do.
#pragma once

#include <string>

namespace bouss {

// Writes XDMF_PATH, the XDMF 2 description of the bouss NetCDF-4 output NETCDF_PATH (a
// finished file, or a partial file up to its last flush), opened read-only with the
// netCDF-C API: a temporal collection with one grid per record of `time`, at the times
// that variable holds. Coordinates are the file's own, never assumed uniform. Fields on
// any other dimensions (two face dimensions, time series) are listed in an XML comment
// as not shown. The NetCDF file is referenced by its path relative to the XDMF file's
// folder (its bare name when the two lie side by side). The XDMF file is written under a
// temporary name in its folder and renamed into place, so a reader never sees half of it.
// Throws std::runtime_error with one line, "XDMF for NETCDF_PATH: REASON", when the file
// cannot be read, is not NetCDF-4 (HDF5), has no records, lacks a coordinate, or the XDMF
// file cannot be written.
void write_xdmf(const std::string& netcdf_path, const std::string& xdmf_path);

// The name of the XDMF file that describes output FILE: FILE.xdmf2, beside it.
std::string xdmf_path_for(const std::string& netcdf_path);

}  // namespace bouss
