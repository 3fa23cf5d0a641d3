// A scalar diagnostic of a run's diagnostics series: its name and the long_name and units its
// netCDF variable carries. The flow's own are model/diagnostics.hpp's table; a case's physics
// registers its own (the lock exchange's: physics/lock_exchange.hpp); the writer reads the
// descriptions it is handed (io/netcdf_writer.hpp describe_diagnostics), with the panel of
// the default series picture each belongs to.
#pragma once

#include <string>

namespace bouss {

struct DiagnosticInfo {
  std::string name;
  std::string long_name;
  std::string units;  // SI
  // The panel of `bouss plot --series`'s default picture it is drawn in (written as the
  // variable's plot_panel attribute; quantities of one panel share it); empty: not drawn by
  // default. The physics that owns a diagnostic picks its panel.
  std::string panel{};
};

}  // namespace bouss
