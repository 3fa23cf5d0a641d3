// One error line for a failed cuFFT call (CUDA builds only): "cuFFT: WHAT: error N".
#pragma once

#include <cufft.h>

#include <stdexcept>
#include <string>

namespace bouss {

inline void cufft_check(cufftResult e, const char* what) {
  if (e != CUFFT_SUCCESS) throw std::runtime_error(std::string("cuFFT: ") + what + ": error " + std::to_string(int(e)));
}

}  // namespace bouss
