// bouss xdmf FILE.nc: writes FILE.nc.xdmf2, the XDMF description ParaView opens (io/xdmf.hpp).
// A run writes it beside its output at the end; this command makes one for a partial file
// a killed run left, or for a file copied without it.
#include <cstdio>
#include <string>

#include "io/xdmf.hpp"
#include "tools/commands.hpp"

namespace bouss {

int xdmf_command(const std::string& netcdf_path) {
  try {
    const std::string xdmf = xdmf_path_for(netcdf_path);
    write_xdmf(netcdf_path, xdmf);
    std::printf("wrote %s\n", xdmf.c_str());
  } catch (const std::exception& e) {
    print_error(e.what());
    return 2;
  }
  return 0;
}

}  // namespace bouss
