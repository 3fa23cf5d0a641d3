#include "io/checkpoint_checksum.hpp"

#include <cstring>
#include <stdexcept>

namespace bouss {
namespace {

// SplitMix64's finaliser: every input bit moves about half of the output bits.
inline std::uint64_t mix(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// One point's term: its value's bits mixed with its place.
inline std::uint64_t term(double value, std::uint64_t place) {
  std::uint64_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return mix(bits ^ mix(place + 0x9e3779b97f4a7c15ull));
}

}  // namespace

std::uint64_t checksum_part(const double* values, const Box& held, const Box& counted,
                            const std::array<std::size_t, 3>& extents) {
  if (counted.empty()) return 0;
  for (int a = 0; a < 3; ++a)
    if (counted.lo[a] < held.lo[a] || counted.hi[a] > held.hi[a] || counted.lo[a] < 0 ||
        std::size_t(counted.hi[a]) > extents[a])
      throw std::invalid_argument("checksum_part: the counted box is not inside the held one and the array");
  const std::size_t hx = std::size_t(held.extent(0)), hy = std::size_t(held.extent(1));
  std::uint64_t sum = 0;
  for (int k = counted.lo[2]; k < counted.hi[2]; ++k)
    for (int j = counted.lo[1]; j < counted.hi[1]; ++j) {
      const double* row = values + (std::size_t(k - held.lo[2]) * hy + std::size_t(j - held.lo[1])) * hx +
                          std::size_t(counted.lo[0] - held.lo[0]);
      const std::uint64_t place = (std::uint64_t(k) * extents[1] + std::uint64_t(j)) * extents[0] + std::uint64_t(counted.lo[0]);
      for (int i = 0; i < counted.extent(0); ++i) sum += term(row[i], place + std::uint64_t(i));
    }
  return sum;
}

std::uint64_t checksum_part(const double* values, std::size_t count, std::size_t first) {
  std::uint64_t sum = 0;
  for (std::size_t i = 0; i < count; ++i) sum += term(values[i], first + i);
  return sum;
}

}  // namespace bouss
