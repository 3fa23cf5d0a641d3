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
// to the interior origin), over [lob, hib) x [loc, hic) of the other two axes (the field's
// padded range, from -ghost, or less: grid/halo.hpp's corner columns), at `at` elements into
// the message.
template <class S>
struct Slab {
  S* origin;
  int first, layers;
  int lob, hib, loc, hic;
  std::ptrdiff_t at;
  std::ptrdiff_t elements() const { return std::ptrdiff_t(layers) * (hib - lob) * (hic - loc); }
};
// Every field's slab of both directions.
template <class S>
struct Slabs {
  Slab<S> f[2 * max_fill_fields + 4];  // every field's two directions, or one field's and its corner columns
  int count = 0;
};

// Between the messages and the fields: one launch for every slab.
template <class S>
void move_slabs(const Backend& be, const Slabs<S>& slabs, const Layout& L, int a, S* message, bool to_message) {
  const int count = slabs.count;
  if (count == 0) return;
  const int b = a == 0 ? 1 : 0, c = a == 2 ? 1 : 2;
  const std::ptrdiff_t sa = L.stride(a), sb = L.stride(b), sc = L.stride(c);
  int lob = 0, hib = 0, loc = 0, hic = 0, layers = 0;
  for (int q = 0; q < count; ++q) {
    const Slab<S>& F = slabs.f[q];
    lob = std::min(lob, F.lob), hib = std::max(hib, F.hib), loc = std::min(loc, F.loc), hic = std::max(hic, F.hic);
    layers = std::max(layers, F.layers);
  }
  const Box box{{lob, loc, 0}, {hib, hic, count * layers}};
  for_each(be, box, [=] BOUSS_HD(int jb, int kc, int qm) {
    const Slab<S>& F = slabs.f[qm / layers];
    const int m = qm % layers;
    if (jb < F.lob || jb >= F.hib || kc < F.loc || kc >= F.hic || m >= F.layers) return;
    S* p = F.origin + (F.first + m) * sa + jb * sb + kc * sc;
    S* q = message + F.at + (std::ptrdiff_t(m) * (F.hic - F.loc) + (kc - F.loc)) * (F.hib - F.lob) + (jb - F.lob);  // jb fastest, as the threads
    if (to_message) *q = *p;
    else *p = *q;
  }, to_message ? "halo pack" : "halo unpack");
}

// The axes' exchanges, every axis's two directions in one group of messages with the
// others': per axis one packing and one unpacking launch (the slabs' strides are the axis's).
// `corners` (x and y both exchanged, one field): the x faces' slabs span y's interior alone,
// the y faces' x's interior, and each cell of the first ghost layer where both meet (a column
// along z) comes from the rank across that edge (FieldBC::corner_with), in the x launch.
template <class S>
void exchange_axes(Field<S>* const fields[], const FieldBC* const bcs[], int count, const int* axes, int n_axes,
                   bool corners = false) {
  const Layout& L = fields[0]->layout();
  const Backend& be = fields[0]->backend();
  const int g = L.ghost;
  corners = corners && n_axes == 2;
  if (corners && count != 1) throw std::logic_error("exchange_axes: corner columns of one field at a time");
  RankCosts& costs = rank_costs();
  if (costs.timed) be.synchronize();  // timed, the work queued before is not the exchange's
  const auto started = std::chrono::steady_clock::now();
  // Per axis two directions, sent together: down (my first planes to the lower rank, the
  // upper rank's into my high ghosts and, for faces, my face n) and up (my last g planes to
  // the upper rank, the lower rank's into my low ghosts). A face field sends g + 1 planes
  // down. The directions touch different planes, so both are packed before either is
  // unpacked.
  Slabs<S> out[2]{}, in[2]{};
  MessageStep steps[8];
  int n_steps = 0;
  std::ptrdiff_t elements = 0;
  std::ptrdiff_t start[8][2];  // each step's first element and its end
  for (int x = 0; x < n_axes; ++x) {
    const int a = axes[x], n = L.n[a];
    const int b = a == 0 ? 1 : 0, c = a == 2 ? 1 : 2;
    const int lower = bcs[0]->face[2 * a].exchange_with, upper = bcs[0]->face[2 * a + 1].exchange_with;
    for (int phase = 0; phase < 2; ++phase) {
      const int dest = phase == 0 ? lower : upper, source = phase == 0 ? upper : lower;
      start[n_steps][0] = elements;
      for (int q = 0; q < count; ++q) {
        const Stagger s = fields[q]->stagger();
        const int down = staggered_along(s, a) ? g + 1 : g, layers = phase == 0 ? down : g;
        const Box padded = L.padded(s);
        const int lob = corners ? 0 : -g, hib = corners ? L.n[b] : padded.hi[b];
        S* origin = fields[q]->view().origin;
        const Slab<S> slab{origin, 0, layers, lob, hib, -g, padded.hi[c], elements};
        if (dest >= 0) (out[x].f[out[x].count++] = slab).first = phase == 0 ? 0 : n - g;
        if (source >= 0) (in[x].f[in[x].count++] = slab).first = phase == 0 ? n : -g;
        elements += slab.elements();
      }
      start[n_steps][1] = elements;
      steps[n_steps++] = {nullptr, 0, dest, nullptr, 0, source, 100 + 2 * a + phase};
    }
  }
  // The corner columns, direction (sx, sy): my cell at that corner to the rank across it, the
  // opposite rank's into my ghost at the opposite corner.
  for (int e = 0; corners && e < 4; ++e) {
    const int sx = e & 1, sy = e >> 1, dest = bcs[0]->corner_with[e], source = bcs[0]->corner_with[3 - e];
    const int nx = L.n[0], ny = L.n[1];
    S* origin = fields[0]->view().origin;
    const int hic = L.padded(fields[0]->stagger()).hi[2];
    start[n_steps][0] = elements;
    const int mine = sy ? ny - 1 : 0, ghost = sy ? -1 : ny;
    if (dest >= 0) out[0].f[out[0].count++] = {origin, sx ? nx - 1 : 0, 1, mine, mine + 1, -g, hic, elements};
    if (source >= 0) in[0].f[in[0].count++] = {origin, sx ? -1 : nx, 1, ghost, ghost + 1, -g, hic, elements};
    elements += hic + g;
    start[n_steps][1] = elements;
    steps[n_steps++] = {nullptr, 0, dest, nullptr, 0, source, 200 + e};
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
  for (int k = 0; k < n_steps; ++k) {
    const std::size_t bytes = std::size_t(start[k][1] - start[k][0]) * sizeof(S);
    steps[k].send = send + start[k][0];
    steps[k].send_bytes = bytes;
    steps[k].recv = receive + start[k][0];
    steps[k].recv_bytes = bytes;
    if (steps[k].dest >= 0) costs.halo_bytes += double(bytes), ++costs.halo_exchanges;
  }
  sendrecv_on(be, steps, n_steps);
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
void exchange_cut_faces(Field<S>& f, const FieldBC& bc, bool corners) {
  int axes[2], n_axes = 0;
  for (int a = 0; a < 2; ++a)
    if (bc.exchanged(2 * a) || bc.exchanged(2 * a + 1)) axes[n_axes++] = a;
  if (n_axes == 0) return;
  Field<S>* const fields[1] = {&f};
  const FieldBC* const bcs[1] = {&bc};
  exchange_axes(fields, bcs, 1, axes, n_axes, corners);
}

template void exchange_halos<double>(Field<double>* const[], const FieldBC* const[], int, int);
template void exchange_halos<float>(Field<float>* const[], const FieldBC* const[], int, int);
template void exchange_cut_faces<double>(Field<double>&, const FieldBC&, bool);
template void exchange_cut_faces<float>(Field<float>&, const FieldBC&, bool);

}  // namespace bouss
