// The baselines need cuFFT and cuSPARSE: a build without CUDA has none.
#include <stdexcept>

#include "tools/baselines.hpp"

namespace bouss {

bool baselines_available() { return false; }
BaselineRun fft_poisson(const Grid&, const Field<double>&, Field<double>&, int) {
  throw std::runtime_error("the fft baseline needs a CUDA build");
}
BaselineRun csr_cg(const Grid&, const FieldBC&, const CsrCgOptions&, const Field<double>&, Field<double>&) {
  throw std::runtime_error("the csr_cg baseline needs a CUDA build");
}

BaselineRun gtsv_baseline(const Layout&, const std::vector<double>&, const std::vector<double>&,
                          const std::vector<double>&, const Field<double>&, Field<double>&, bool, int) {
  throw std::runtime_error("the cusparse_gtsv baselines need a CUDA build");
}

}  // namespace bouss
