// Stretched faces along an axis: the tanh clustering DNS codes use towards walls (the plates
// in z, the side walls in x and y), and the rule that keeps a stretched grid smooth enough
// for second order.
#pragma once

#include <string>
#include <vector>

namespace bouss {

enum class Cluster { both, low, high };

// n + 1 face positions from lo to lo + length, clustered by tanh with parameter beta > 0
// (larger: finer at the clustered walls; beta -> 0 tends to the uniform grid):
//   both: z_k = lo + L (1 + tanh(beta (2k/n - 1)) / tanh(beta)) / 2
//   low:  z_k = lo + L (1 + tanh(beta (k/n - 1)) / tanh(beta))   (towards lo: z's bottom)
//   high: z_k = lo + L tanh(beta k/n) / tanh(beta)                (towards lo + L: z's top)
// The ends are exactly lo and lo + length.
std::vector<double> tanh_faces(int n, double lo, double length, double beta, Cluster cluster);

// Adjacent cells may differ in thickness by at most this ratio.
constexpr double max_stretch_ratio = 1.5;

// The largest ratio of adjacent cell thicknesses, and the first cell k of the pair (k, k+1);
// on a periodic axis the last cell's neighbour is the first (the pair (n-1, 0), cell n-1).
struct StretchRatio {
  double ratio = 1;
  int cell = 0;
};
StretchRatio largest_stretch_ratio(const std::vector<double>& faces, bool periodic = false);

}  // namespace bouss
