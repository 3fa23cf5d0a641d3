// Compiled as CUDA when the build has it (see CMakeLists.txt).
#include "grid/halo.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "grid/for_each.hpp"
#include "grid/device_messages.hpp"
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
// Every field's slab of both directions.
template <class S>
struct Slabs {
  Slab<S> f[2 * max_fill_fields];
  int count = 0;
};

// Between the messages and the fields: one launch for every slab.
template <class S>
void move_slabs(const Backend& be, const Slabs<S>& slabs, const Layout& L, int a, S* message, bool to_message) {
  const int count = slabs.count;
  if (count == 0) return;
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
    S* q = message + F.at + (std::ptrdiff_t(m) * (F.hic + g) + (kc + g)) * (F.hib + g) + (jb + g);  // jb fastest, as the threads
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
  RankCosts& costs = rank_costs();
  if (costs.timed) be.synchronize();  // timed, the work queued before is not the exchange's
  const auto started = std::chrono::steady_clock::now();
  // Two directions, sent together: down (my first planes to the lower rank, the upper
  // rank's into my high ghosts and, for faces, my face n) and up (my last g planes to the
  // upper rank, the lower rank's into my low ghosts). A face field sends g + 1 planes down.
  // The directions touch different planes, so both are packed before either is unpacked:
  // one packing launch, one group of messages, one unpacking launch.
  Slabs<S> out{}, in{};
  std::ptrdiff_t elements = 0, start[3] = {0, 0, 0};
  for (int phase = 0; phase < 2; ++phase) {
    const int dest = phase == 0 ? lower : upper, source = phase == 0 ? upper : lower;
    for (int q = 0; q < count; ++q) {
      const Stagger s = fields[q]->stagger();
      const int down = staggered_along(s, a) ? g + 1 : g, layers = phase == 0 ? down : g;
      const Box padded = L.padded(s);
      const int hib = padded.hi[b], hic = padded.hi[c];
      S* origin = fields[q]->view().origin;
      if (dest >= 0) out.f[out.count++] = {origin, phase == 0 ? 0 : n - g, layers, hib, hic, elements};
      if (source >= 0) in.f[in.count++] = {origin, phase == 0 ? n : -g, layers, hib, hic, elements};
      elements += std::ptrdiff_t(layers) * (hib + g) * (hic + g);
    }
    start[phase + 1] = elements;
  }
  S* send = static_cast<S*>(be.buffer(Backend::Buffer::send, std::size_t(elements) * sizeof(S)));
  S* receive = static_cast<S*>(be.buffer(Backend::Buffer::receive, std::size_t(elements) * sizeof(S)));
  // Timed (bouss bench's cost steps), the packing's device time on its own, with events:
  // ranks sharing a GPU time-slice the wall time. Untimed, nothing waits here (NCCL's
  // messages are queued on the stream behind the packing).
  const auto device_work = [&](const Slabs<S>& slabs, S* message, bool to_message) {
    if (!costs.timed) return move_slabs(be, slabs, L, a, message, to_message);
    RegionTimer timer(be);
    timer.start();
    move_slabs(be, slabs, L, a, message, to_message);
    costs.halo_pack_seconds += 1e-3 * timer.stop_ms();
  };
  device_work(out, send, true);
  MessageStep steps[2];
  for (int phase = 0; phase < 2; ++phase) {
    const std::size_t bytes = std::size_t(start[phase + 1] - start[phase]) * sizeof(S);
    const int dest = phase == 0 ? lower : upper;
    steps[phase] = {send + start[phase], bytes, dest, receive + start[phase], bytes, phase == 0 ? upper : lower,
                    100 + 2 * a + phase};
    if (dest >= 0) costs.halo_bytes += double(bytes), ++costs.halo_exchanges;
  }
  sendrecv_on(be, steps, 2);
  device_work(in, receive, false);
  if (!costs.timed) return;
  be.synchronize();  // the unpacking is part of the exchange's cost
  costs.halo_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
}

template void exchange_halos<double>(Field<double>* const[], const FieldBC* const[], int, int);
template void exchange_halos<float>(Field<float>* const[], const FieldBC* const[], int, int);

}  // namespace bouss
