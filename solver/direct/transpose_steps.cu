// Compiled as CUDA when the build has it (see CMakeLists.txt).
#include "solver/direct/transpose_steps.hpp"

#include <chrono>

#include "grid/device_messages.hpp"
#include "grid/for_each.hpp"
#include "parallel/rank_costs.hpp"

namespace bouss {

std::vector<int> even_cuts(int n, int parts) {
  std::vector<int> cut(std::size_t(parts) + 1);
  for (int p = 0; p <= parts; ++p) cut[std::size_t(p)] = int((static_cast<long long>(n) * p + parts - 1) / parts);
  return cut;
}

template <class R>
void copy_strided(const Backend& be, const R* src, Strides s, R* dst, Strides d, std::array<int, 3> extent) {
  if (std::ptrdiff_t(extent[0]) * extent[1] * extent[2] <= 0) return;
  for_each(be, Box{{0, 0, 0}, extent}, [=] BOUSS_HD(int i, int j, int k) {
    dst[i + j * d[0] + k * d[1]] = src[i + j * s[0] + k * s[1]];
  }, "fft transpose copy");
}
template void copy_strided<double>(const Backend&, const double*, Strides, double*, Strides, std::array<int, 3>);
template void copy_strided<float>(const Backend&, const float*, Strides, float*, Strides, std::array<int, 3>);

void transpose_all_to_all(const Backend& be, const void* send, const std::vector<std::size_t>& send_counts,
                          void* receive, const std::vector<std::size_t>& receive_counts, void* stream) {
  RankCosts& costs = rank_costs();
  if (costs.timed) be.synchronize();  // timed, the packing and transforms queued before are not the transpose's
  const auto started = std::chrono::steady_clock::now();
  std::size_t sent = 0;
  for (std::size_t c : send_counts) sent += c;
  alltoallv_on(be, send, send_counts, receive, receive_counts, stream);
  costs.transpose_bytes += double(sent - send_counts[std::size_t(be.ranks().rank())]);
  if (!costs.timed) return;
  // the transpose's own time (NCCL's is queued on its stream)
  if (stream) {
    StreamEvent done;
    done.record_on(be, stream);
    done.wait();
  } else {
    be.synchronize();
  }
  costs.transpose_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
}

void transpose_all_to_all(const Backend& be, const std::vector<std::size_t>& send_counts,
                          const std::vector<std::size_t>& receive_counts) {
  std::size_t sent = 0, received = 0;
  for (std::size_t p = 0; p < send_counts.size(); ++p) sent += send_counts[p], received += receive_counts[p];
  void* send = be.buffer(Backend::Buffer::send, sent);
  void* receive = be.buffer(Backend::Buffer::receive, received);
  transpose_all_to_all(be, send, send_counts, receive, receive_counts, nullptr);
}

}  // namespace bouss
