// Observed orders of convergence and Richardson extrapolation from values computed at
// resolutions of any ratio (not only doubling). Resolution R is a cell count along one axis,
// so the spacing is h ~ 1/R and the ratio of two resolutions is r = R_fine / R_coarse = h_coarse / h_fine.
//
// The model is the leading error term, f(h) = f* + C h^p. Three resolutions R1 < R2 < R3 with
// differences e21 = f2 - f1, e32 = f3 - f2 and ratios r21 = R2 / R1, r32 = R3 / R2 give
// e21 / e32 = (h2^p - h1^p) / (h3^p - h2^p), so the order p is the root of
//     e21 / e32 = (r21^p - 1) / (1 - r32^-p)
// (the non-constant-ratio form of Celik et al., "Procedure for estimation and reporting of
// uncertainty due to discretization in CFD applications", J. Fluids Eng. 130, 078001, 2008),
// which reduces to p = ln(e21 / e32) / ln r when r21 = r32 = r and is solved numerically
// otherwise (its right side increases monotonically with p). The Richardson extrapolation
// of the two finest values at order p is
//     f* = f3 + (f3 - f2) / (r32^p - 1).
#pragma once

#include <vector>

namespace bouss {

// The order p of the relation above; NaN when the differences change sign (no monotone
// convergence) or a difference is zero or not finite.
double observed_order(double e21, double e32, double r21, double r32);

// f* from the two finest values at order p, r = R_fine / R_coarse.
double richardson_extrapolation(double coarse, double fine, double r, double order);

// The value expected at resolution `next` from the two previous ones at order p (the same
// model): f_next = f2 + (f2 - f1) (h_next^p - h2^p) / (h2^p - h1^p). With doubling and p = 2
// the next difference is a quarter of the last.
double predicted_value(int r1, double f1, int r2, double f2, int next, double order);

constexpr double scheme_order = 2;  // second-order finite volumes and AB2 (paper 004)

// Differences between successive resolutions, observed orders from each three, and the
// Richardson extrapolation of the two finest values at the scheme's order.
struct ConvergenceTable {
  std::vector<int> resolutions;
  std::vector<double> values, differences, orders;  // differences[i] = values[i] - values[i-1]; orders from i = 2 (else NaN)
  double extrapolated = 0;     // NaN with fewer than two values
  double extrapolation_ratio = 0;  // R_n / R_{n-1} of the two finest
  double observed_order = 0;   // from the three finest values; NaN with fewer than three
};
// `resolutions` increase strictly (one per value).
ConvergenceTable convergence_table(const std::vector<int>& resolutions, const std::vector<double>& values);

}  // namespace bouss
