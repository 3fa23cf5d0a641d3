// Compiled as CUDA when the build has it (see CMakeLists.txt).
#include "grid/halo.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "grid/for_each.hpp"
#include "parallel/device_messages.hpp"
#include "parallel/rank_costs.hpp"

namespace bouss {

namespace {

// One field's planes along the exchanged axis: `layers` planes from plane `first` (relative
// to the interior origin), over the field's padded range of the other two axes (from
// -ghost to hib, hic), at `at` elements into the message.
template <class S>
struct Slab {
  S* origin;
  int first, layers;
  int hib, hic;
  std::ptrdiff_t at;
};
template <class S>
struct Slabs {
  Slab<S> f[max_fill_fields];
};

// Between the message and the fields: one launch for every field's slab.
template <class S>
void move_slabs(const Backend& be, const Slabs<S>& slabs, int count, const Layout& L, int a, S* message,
                bool to_message) {
  const int b = a == 0 ? 1 : 0, c = a == 2 ? 1 : 2, g = L.ghost;
  const std::ptrdiff_t sa = L.stride(a), sb = L.stride(b), sc = L.stride(c);
  int hib = 0, hic = 0, layers = 0;
  for (int q = 0; q < count; ++q)
    hib = std::max(hib, slabs.f[q].hib), hic = std::max(hic, slabs.f[q].hic), layers = std::max(layers, slabs.f[q].layers);
  const Box box{{-g, -g, 0}, {hib, hic, count * layers}};
  for_each(be, box, [=] BOUSS_HD(int jb, int kc, int qm) {
    const Slab<S>& F = slabs.f[qm / layers];
    const int m = qm % layers;
    if (jb >= F.hib || kc >= F.hic || m >= F.layers) return;
    S* p = F.origin + (F.first + m) * sa + jb * sb + kc * sc;
    S* q = message + F.at + (std::ptrdiff_t(m) * (F.hib + g) + (jb + g)) * (F.hic + g) + (kc + g);
    if (to_message) *q = *p;
    else *p = *q;
  }, to_message ? "halo pack" : "halo unpack");
}

}  // namespace


template <class S>
void exchange_halos(Field<S>* const fields[], const FieldBC* const bcs[], int count, int a) {
  const Layout& L = fields[0]->layout();
  const Backend& be = fields[0]->backend();
  const int g = L.ghost, n = L.n[a];
  const int b = a == 0 ? 1 : 0, c = a == 2 ? 1 : 2;
  const int lower = bcs[0]->face[2 * a].exchange_with, upper = bcs[0]->face[2 * a + 1].exchange_with;
  const auto started = std::chrono::steady_clock::now();
  RankCosts& costs = rank_costs();
  // Two phases: down (my first planes to the lower rank, the upper rank's into my high
  // ghosts and, for faces, my face n), then up (my last g planes to the upper rank, the
  // lower rank's into my low ghosts). A face field sends g + 1 planes down.
  for (int phase = 0; phase < 2; ++phase) {
    const int dest = phase == 0 ? lower : upper, source = phase == 0 ? upper : lower;
    Slabs<S> out{}, in{};
    std::ptrdiff_t elements = 0;
    for (int q = 0; q < count; ++q) {
      const Stagger s = fields[q]->stagger();
      const int down = staggered_along(s, a) ? g + 1 : g;
      const Box padded = L.padded(s);
      const int hib = padded.hi[b], hic = padded.hi[c];
      S* origin = fields[q]->view().origin;
      if (phase == 0) {
        out.f[q] = {origin, 0, down, hib, hic, elements};
        in.f[q] = {origin, n, down, hib, hic, elements};
        elements += std::ptrdiff_t(down) * (hib + g) * (hic + g);
      } else {
        out.f[q] = {origin, n - g, g, hib, hic, elements};
        in.f[q] = {origin, -g, g, hib, hic, elements};
        elements += std::ptrdiff_t(g) * (hib + g) * (hic + g);
      }
    }
    const std::size_t bytes = std::size_t(elements) * sizeof(S);
    S* send = static_cast<S*>(be.buffer(Backend::Buffer::send, bytes));
    S* receive = static_cast<S*>(be.buffer(Backend::Buffer::receive, bytes));
    // Timed (bouss bench's cost steps), the packing's device time on its own, with events:
    // ranks sharing a GPU time-slice the wall time. Untimed, nothing waits here (NCCL's
    // messages are queued on the stream behind the packing).
    const auto device_work = [&](const Slabs<S>& slabs, S* message, bool to_message) {
      if (!costs.timed) return move_slabs(be, slabs, count, L, a, message, to_message);
      RegionTimer timer(be);
      timer.start();
      move_slabs(be, slabs, count, L, a, message, to_message);
      costs.halo_pack_seconds += 1e-3 * timer.stop_ms();
    };
    if (dest >= 0) device_work(out, send, true);
    sendrecv_on(be, send, bytes, dest, receive, bytes, source, 100 + 2 * a + phase);
    if (source >= 0) device_work(in, receive, false);
    if (dest >= 0) costs.halo_bytes += double(bytes), ++costs.halo_exchanges;
  }
  if (!costs.timed) return;
  be.synchronize();  // the unpacking is part of the exchange's cost
  costs.halo_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
}

template void exchange_halos<double>(Field<double>* const[], const FieldBC* const[], int, int);
template void exchange_halos<float>(Field<float>* const[], const FieldBC* const[], int, int);

}  // namespace bouss
