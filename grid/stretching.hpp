// Stretched z faces: the tanh clustering Rayleigh-Benard DNS codes use towards the plates,
// and the rule that keeps a stretched grid smooth enough for second order.
#pragma once

#include <string>
#include <vector>

namespace bouss {

enum class Cluster { both, bottom, top };

// n + 1 face positions from lo to lo + length, clustered by tanh with parameter beta > 0
// (larger: finer at the clustered walls; beta -> 0 tends to the uniform grid):
//   both:   z_k = lo + L (1 + tanh(beta (2k/n - 1)) / tanh(beta)) / 2
//   bottom: z_k = lo + L (1 + tanh(beta (k/n - 1)) / tanh(beta))
//   top:    z_k = lo + L tanh(beta k/n) / tanh(beta)
// The ends are exactly lo and lo + length.
std::vector<double> tanh_faces(int n, double lo, double length, double beta, Cluster cluster);

// Adjacent cells may differ in thickness by at most this ratio.
constexpr double max_stretch_ratio = 1.5;

// The largest ratio of adjacent cell thicknesses, and the first cell k of the pair (k, k+1).
struct StretchRatio {
  double ratio = 1;
  int cell = 0;
};
StretchRatio largest_stretch_ratio(const std::vector<double>& faces);

}  // namespace bouss
