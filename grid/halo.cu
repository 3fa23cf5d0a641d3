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

// The axes' exchanges, every axis's two directions in one group of messages with the
// others': per axis one packing and one unpacking launch (the slabs' strides are the axis's).
template <class S>
void exchange_axes(Field<S>* const fields[], const FieldBC* const bcs[], int count, const int* axes, int n_axes) {
  const Layout& L = fields[0]->layout();
  const Backend& be = fields[0]->backend();
  const int g = L.ghost;
  RankCosts& costs = rank_costs();
  if (costs.timed) be.synchronize();  // timed, the work queued before is not the exchange's
  const auto started = std::chrono::steady_clock::now();
  // Per axis two directions, sent together: down (my first planes to the lower rank, the
  // upper rank's into my high ghosts and, for faces, my face n) and up (my last g planes to
  // the upper rank, the lower rank's into my low ghosts). A face field sends g + 1 planes
  // down. The directions touch different planes, so both are packed before either is
  // unpacked.
  Slabs<S> out[2]{}, in[2]{};
  MessageStep steps[4];
  std::ptrdiff_t elements = 0;
  std::ptrdiff_t start[4][2];  // each step's first element and its end
  for (int x = 0; x < n_axes; ++x) {
    const int a = axes[x], n = L.n[a];
    const int b = a == 0 ? 1 : 0, c = a == 2 ? 1 : 2;
    const int lower = bcs[0]->face[2 * a].exchange_with, upper = bcs[0]->face[2 * a + 1].exchange_with;
    for (int phase = 0; phase < 2; ++phase) {
      const int dest = phase == 0 ? lower : upper, source = phase == 0 ? upper : lower;
      start[2 * x + phase][0] = elements;
      for (int q = 0; q < count; ++q) {
        const Stagger s = fields[q]->stagger();
        const int down = staggered_along(s, a) ? g + 1 : g, layers = phase == 0 ? down : g;
        const Box padded = L.padded(s);
        const int hib = padded.hi[b], hic = padded.hi[c];
        S* origin = fields[q]->view().origin;
        if (dest >= 0) out[x].f[out[x].count++] = {origin, phase == 0 ? 0 : n - g, layers, hib, hic, elements};
        if (source >= 0) in[x].f[in[x].count++] = {origin, phase == 0 ? n : -g, layers, hib, hic, elements};
        elements += std::ptrdiff_t(layers) * (hib + g) * (hic + g);
      }
      start[2 * x + phase][1] = elements;
      steps[2 * x + phase].dest = dest;
      steps[2 * x + phase].source = source;
      steps[2 * x + phase].tag = 100 + 2 * a + phase;
    }
  }
  S* send = static_cast<S*>(be.buffer(Backend::Buffer::send, std::size_t(elements) * sizeof(S)));
  S* receive = static_cast<S*>(be.buffer(Backend::Buffer::receive, std::size_t(elements) * sizeof(S)));
  // Timed (bouss bench's cost steps), the packing's device time on its own, with events:
  // ranks sharing a GPU time-slice the wall time. Untimed, nothing waits here (NCCL's
  // messages are queued on the stream behind the packing).
  const auto device_work = [&](const Slabs<S>& slabs, int a, S* message, bool to_message) {
    if (!costs.timed) return move_slabs(be, slabs, L, a, message, to_message);
    RegionTimer timer(be);
    timer.start();
    move_slabs(be, slabs, L, a, message, to_message);
    costs.halo_pack_seconds += 1e-3 * timer.stop_ms();
  };
  for (int x = 0; x < n_axes; ++x) device_work(out[x], axes[x], send, true);
  for (int k = 0; k < 2 * n_axes; ++k) {
    const std::size_t bytes = std::size_t(start[k][1] - start[k][0]) * sizeof(S);
    steps[k].send = send + start[k][0];
    steps[k].send_bytes = bytes;
    steps[k].recv = receive + start[k][0];
    steps[k].recv_bytes = bytes;
    if (steps[k].dest >= 0) costs.halo_bytes += double(bytes), ++costs.halo_exchanges;
  }
  sendrecv_on(be, steps, 2 * n_axes);
  for (int x = 0; x < n_axes; ++x) device_work(in[x], axes[x], receive, false);
  if (!costs.timed) return;
  be.synchronize();  // the unpacking is part of the exchange's cost
  costs.halo_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
}

}  // namespace

template <class S>
void exchange_halos(Field<S>* const fields[], const FieldBC* const bcs[], int count, int a) {
  exchange_axes(fields, bcs, count, &a, 1);
}

template <class S>
void exchange_cut_faces(Field<S>& f, const FieldBC& bc) {
  int axes[2], n_axes = 0;
  for (int a = 0; a < 2; ++a)
    if (bc.exchanged(2 * a) || bc.exchanged(2 * a + 1)) axes[n_axes++] = a;
  if (n_axes == 0) return;
  Field<S>* const fields[1] = {&f};
  const FieldBC* const bcs[1] = {&bc};
  exchange_axes(fields, bcs, 1, axes, n_axes);
}

template void exchange_halos<double>(Field<double>* const[], const FieldBC* const[], int, int);
template void exchange_halos<float>(Field<float>* const[], const FieldBC* const[], int, int);
template void exchange_cut_faces<double>(Field<double>&, const FieldBC&);
template void exchange_cut_faces<float>(Field<float>&, const FieldBC&);

}  // namespace bouss
