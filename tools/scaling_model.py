#!/usr/bin/env python3
"""The scaling model of docs/scaling.md: time per step on P GPUs as compute plus halo
exchanges plus reductions (plus the transposes of the distributed direct solve), from the
inputs named below. Prints the tables of docs/scaling.md; python3, standard library only.

    python3 tools/scaling_model.py            # the tables, Markdown
    python3 tools/scaling_model.py --measured [docs/scaling.json] [CALL]   # beside a call's runs
"""
import math

# Measured on one H200 (docs/performance.md, build 9f4825b, developed Ra = 1e7 at
# 256x256x128): ns per cell per step of the whole step, fp64.
NS_PER_CELL = {"multigrid": 3.533e6 / (256 * 256 * 128), "fft": 1.098e6 / (256 * 256 * 128)}
CYCLES = 3            # V-cycles a step, developed, extrapolated guess (README)
SWEEP_EXCHANGES = 10  # per V-cycle, the finest level: V(2,2) = 4 sweeps x 2 colours, the residual, the prolongation
# A coarser level, two ghost layers (solver/multigrid/hierarchy.hpp smooth): its restricted
# b's layer, one exchange a sweep (none before the first: its correction starts cleared),
# the fills after pre- and post-smoothing.
COARSE_EXCHANGES = 6
# Of those, the exchanges of the cut faces alone, every cut axis in one group of messages
# (grid/halo.hpp exchange_cut_faces, issue 35: before each colour on the finest, b's and
# each sweep's on a coarser); the others fill axis after axis.
COLOUR_EXCHANGES = {SWEEP_EXCHANGES: 8, COARSE_EXCHANGES: 4}
STEP_EXCHANGES = [4, 3, 1]  # fields per exchange of the step: after the advance (u, v, w, T), the gradient (u, v, w), the pressure
REDUCTIONS = 3 + 1 * CYCLES  # CFL rate, b's and x's means, a residual norm per cycle
COARSE_MS = 0.2       # the agglomerated coarse levels on one GPU per cycle (latency-bound small levels)
AGGLOMERATE_BELOW = 32  # pressure.agglomerate_below's default: levels with narrower blocks are gathered
BYTES = 8             # fp64
X_FACE_WEIGHT = 4     # grid/decomposition.hpp: a strided y-z face cell against a row's

# Links (nominal, published): NVLink 4 of an H100/H200 SXM, 900 GB/s in all, 450 GB/s each
# way (NVIDIA H100/H200 datasheets); InfiniBand NDR, 400 Gb/s = 50 GB/s each way per GPU
# (one ConnectX-7 port per GPU, as in DGX H100). Latency: per exchange of one cut axis (both
# directions in one group of NCCL messages, as grid/halo.cu sends them) or reduction stage.
# On a node it is measured (issue 14, MEASURED_ALPHA below: every cost of the cut that is
# not bandwidth, over the exchanges); between nodes it is assumed 5 us more (InfiniBand's
# own latency), unmeasured.
GPUS_PER_NODE = 8
BW_NODE, BW_NET = 450e9, 50e9
# Measured (issue 35, two H200s over NVLink, NCCL, build ead066b, one call): the multigrid's
# weak step, 1024x512x256 on 2x1 checked every step (4.0 cycles), took 33.85 ms against one
# GPU's 28.84 at 512x512x256; that difference over its 144 exchanges a step (288 messages,
# two an exchange). Issue 14's first fit (two H100s, build 843141a, before the V-cycles were
# graphs): (23.51 - 33.76 / 2) ms over 156 exchanges, 42 us.
MEASURED_ALPHA = (33.849 - 28.843) * 1e-3 / 144
ASSUMED_ALPHA = 10e-6  # this model's first assumption, kept for the comparison
ALPHA_NODE, ALPHA_NET = MEASURED_ALPHA, MEASURED_ALPHA + 5e-6
# The direct solve's all-to-alls on a node, effective (issue 35, four H200s over NVLink, NCCL,
# build 40ca3dd): the step at 1024x1024x512 on four GPUs took 23.47 ms against one GPU's
# 66.89 / 4, its halos 0.77: 5.98 ms for two all-to-alls of 0.81 GB each a step, 270 GB/s,
# what the x side's packing and transforms left unhidden by the pieces included.
A2A_NODE = 2 * 0.807e9 / 5.98e-3
PIECES = 4  # the pencils' pieces (solver/direct/pencil_transform.hpp): messages a rank a way
# The y split (solver/direct/y_split_solve.hpp: the ranks cut y alone, 2 to SPLIT_RANKS of
# them, at least 2 rows a block): no field moves; its cost is the passes it makes beyond one
# GPU's solve (z's transform, two y sweeps) and one all-gather of two values a mode a rank.
# Fitted (issue 35, four H200s over NVLink, NCCL, build 8e2974b, call #13): the weak step,
# 1024x1024x256 on 1x4, took 9.957 ms against one GPU's 7.795 at 512x512x256, its halos
# 0.599: what is left over a block's cells, all-gather included.
SPLIT_RANKS = 8
SPLIT_NS_PER_CELL = (9.957 - 7.795 - 0.599) * 1e6 / (1024 * 256 * 256)
MEMORY_GPU = 139e9    # an H200's memory; bytes a cell of a run (fp64, direct solve) below
BYTES_PER_CELL = 130  # bouss check: 13-14 arrays of 8 bytes, the solver's spectrum and messages


def dims(n, p, solver="multigrid"):
    """The process grid of grid/decomposition.cpp: the direct solve (its y split or pencils)
    cuts y alone (SolverType::process_grid), else the fewest halo cells (a cell of a face cut along x
    counting X_FACE_WEIGHT), then the squarer block."""
    if solver == "fft" and 1 < p <= n[1] and n[0] // 2 + 1 >= p:
        return (1, p)
    best = None
    for px in range(1, p + 1):
        if p % px:
            continue
        py = p // px
        if px > n[0] or py > n[1]:
            continue
        nx, ny = n[0] / px, n[1] / py
        cost = (2 * ny * X_FACE_WEIGHT if px > 1 else 0) + (2 * nx if py > 1 else 0)
        key = (cost, abs(nx - ny))
        if best is None or key <= best[0]:
            best = (key, (px, py))
    return best[1]


def link(p):
    """Bandwidth and latency of the slowest link a P-GPU run uses."""
    return (BW_NODE, ALPHA_NODE) if p <= GPUS_PER_NODE else (BW_NET, ALPHA_NET)


def exchange_seconds(face_cells, cut_axes, p, fields=1, grouped=False):
    """One exchange of `fields` fields together: each cut axis one group of messages, both
    directions at once (each way over its own direction of the link), axis after axis; or,
    grouped, every cut axis in one group (one latency)."""
    bw, alpha = link(p)
    if grouped and cut_axes:
        return alpha + sum(fields * face_cells[a] * BYTES / bw for a in cut_axes)
    return sum(alpha + fields * face_cells[a] * BYTES / bw for a in cut_axes)


def step_ms(n, p, solver):
    px, py = dims(n, p, solver)
    nx, ny, nz = n[0] / px, n[1] / py, n[2]
    bw, alpha = link(p)
    compute = NS_PER_CELL[solver] * 1e-9 * nx * ny * nz
    cut = [a for a, d in ((0, px), (1, py)) if d > 1]
    faces = {0: (ny + 2) * (nz + 2), 1: (nx + 2) * (nz + 2)}
    halo = sum(exchange_seconds(faces, cut, p, f) for f in STEP_EXCHANGES)
    reduce = REDUCTIONS * alpha * math.ceil(math.log2(p)) if p > 1 else 0
    solve_comm = 0.0
    if solver == "multigrid" and p > 1:
        # The finest level on the blocks, and each coarser one whose blocks keep at least
        # AGGLOMERATE_BELOW cells along each cut axis (solver/multigrid/hierarchy.hpp), then
        # the rest gathered onto one GPU (its levels' time COARSE_MS, its gather alpha log P).
        lx, ly, lz = nx, ny, nz
        exchanges = SWEEP_EXCHANGES
        while True:
            lfaces = {0: (ly + 2) * (lz + 2), 1: (lx + 2) * (lz + 2)}
            colour = COLOUR_EXCHANGES[exchanges]
            solve_comm += CYCLES * (colour * exchange_seconds(lfaces, cut, p, grouped=True) +
                                    (exchanges - colour) * exchange_seconds(lfaces, cut, p))
            exchanges = COARSE_EXCHANGES
            lx, ly, lz = lx / 2, ly / 2, max(lz / 2, 1)
            if min({0: lx, 1: ly}[a] for a in cut) < AGGLOMERATE_BELOW:
                break
        solve_comm += CYCLES * (COARSE_MS * 1e-3 + 2 * alpha * math.ceil(math.log2(p)))
    split = solver == "fft" and px == 1 and 1 < p <= SPLIT_RANKS and ny >= 2
    if split:
        # The y split: its passes beyond one GPU's solve (fitted, the all-gather included).
        solve_comm += SPLIT_NS_PER_CELL * 1e-9 * nx * ny * nz
    elif solver == "fft" and p > 1:
        # Pencils (the ranks cut y alone, P <= ny): two all-to-alls a solve, forward and
        # inverse (solver/direct/pencil_transform.hpp), each moving (P - 1) / P of this GPU's
        # half spectrum (as many bytes as its block) in PIECES pieces of P - 1 messages; on a
        # node at the measured effective rate, between nodes the share that leaves the node
        # at the network's. Beyond ny ranks, slabs: four (slab_transform.hpp).
        transposes = 2 if px == 1 else 4
        share = nx * ny * nz * BYTES
        on_node = min(p, GPUS_PER_NODE)
        move = share * (on_node - 1) / p / A2A_NODE + share * (p - on_node) / p / BW_NET
        solve_comm += transposes * (move + PIECES * (p - 1) * alpha)
    return 1e3 * (compute + halo + reduce + solve_comm), (px, py), 1e3 * compute, 1e3 * halo, 1e3 * solve_comm


def table(title, rows):
    print(f"\n{title}\n")
    print("| GPUs | process grid | solver | ms/step | compute ms | speed-up | efficiency |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print("| {} | {}x{} | {} | {:.3f} | {:.3f} | {} | {} |".format(*r))


def strong(n, solver, ps, base):
    rows = []
    t0 = None
    for p in ps:
        t, d, c = step_ms(n, p, solver)[:3]
        if t0 is None:
            t0, p0 = t, p
        speed = t0 / t
        rows.append((p, d[0], d[1], solver, t, c, f"{speed:.2f}x", f"{100 * speed * p0 / p:.0f}%"))
    return rows


def weak(per_gpu, solver, ps):
    rows = []
    t1 = None
    for p in ps:
        px, py = dims((per_gpu[0] * p, per_gpu[1] * p, per_gpu[2]), p, solver)
        n = (per_gpu[0] * px, per_gpu[1] * py, per_gpu[2])
        t, d, c = step_ms(n, p, solver)[:3]
        t1 = t if t1 is None else t1
        rows.append((p, d[0], d[1], solver, t, c, "", f"{100 * t1 / t:.0f}%"))
    return rows


def large(solver):
    """1024^3 to 4096^3 on 8 to 1024 GPUs (from the fewest H200s that hold the grid): ms a
    step, the efficiency against the first count, and what costs most besides compute."""
    rows = []
    for side in (1024, 2048, 4096):
        n = (side, side, side)
        fewest = 2 ** math.ceil(math.log2(side ** 3 * BYTES_PER_CELL / MEMORY_GPU))
        t0 = p0 = None
        for p in (8, 64, 256, 1024):
            if p < fewest:
                continue
            t, d, c, halo, comm = step_ms(n, p, solver)
            if t0 is None:
                t0, p0 = t, p
            limit = max((c, "compute"), (halo, "halos"), (comm, "transposes" if solver == "fft" and p > SPLIT_RANKS else
                                                            "the split's passes" if solver == "fft" else "multigrid latency"))
            rows.append((f"{side}^3", p, f"{d[0]}x{d[1]}", f"{t:.2f}", f"{c:.2f}", f"{100 * t0 * p0 / (t * p):.0f}%",
                         limit[1] if limit[1] != "compute" else "compute (scales)"))
    print(f"\nLarge grids, {solver} (efficiency against the first GPU count of each grid)\n")
    print("| grid | GPUs | process grid | ms/step | compute ms | efficiency | largest cost |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print("| {} | {} | {} | {} | {} | {} | {} |".format(*r))


def against_measurements(path, call="call #5"):
    """The model beside a call's runs (docs/scaling.json; call #5: issue 35's four H200s,
    call #3: issue 14's two H100s): compute from each grid and solver's own one-GPU step
    there (its ms/step over its cells, the machine's), the cycles the ranks took, and the
    message latency as first assumed and as measured."""
    import json
    global ALPHA_NODE, CYCLES, REDUCTIONS
    runs = json.load(open(path))["runs"]
    runs = [r for r in runs if call in r["call"] and r["run"] in ("strong", "weak")]
    firsts = {}
    for r in runs:  # a run repeated in the call: its first
        firsts.setdefault((r["run"], tuple(r["grid"]), r["solver"], r["gpus"]), r)
    runs = list(firsts.values())
    print("\n| run | grid | solver | GPUs | measured ms/step | model, %.0f us an exchange | model, %.0f us |"
          % (ASSUMED_ALPHA * 1e6, MEASURED_ALPHA * 1e6))
    print("|---|---|---|---|---|---|---|")
    saved = dict(NS_PER_CELL), ALPHA_NODE, CYCLES
    for r in runs:
        n = tuple(r["grid"])
        ones = [q for q in runs if q["run"] == r["run"] and q["solver"] == r["solver"] and q["gpus"] == 1
                and (r["run"] == "weak" or q["grid"] == r["grid"])]
        if not ones:  # the call ran no one-GPU step to take the compute from
            print("| {} | {} | {} | {} | {:.2f} | (no one-GPU run in the call) | |".format(
                r["run"], "x".join(map(str, n)), r["solver"], r["gpus"], r["ms_per_step"]))
            continue
        one = ones[0]
        cells1 = one["grid"][0] * one["grid"][1] * one["grid"][2]
        NS_PER_CELL[r["solver"]] = one["ms_per_step"] * 1e6 / cells1
        CYCLES = r["pressure_cycles_per_step"] if r["solver"] == "multigrid" else CYCLES
        REDUCTIONS = 3 + CYCLES
        models = []
        for alpha in (ASSUMED_ALPHA, MEASURED_ALPHA):
            ALPHA_NODE = alpha
            models.append(step_ms(n, r["gpus"], r["solver"])[0])
        print("| {} | {} | {} | {} | {:.2f} | {:.2f} | {:.2f} |".format(r["run"], "x".join(map(str, n)), r["solver"],
                                                                    r["gpus"], r["ms_per_step"], *models))
    NS_PER_CELL.update(saved[0])
    ALPHA_NODE, CYCLES = saved[1], saved[2]


if __name__ == "__main__":
    import sys
    if len(sys.argv) > 1 and sys.argv[1] == "--measured":
        against_measurements(sys.argv[2] if len(sys.argv) > 2 else "docs/scaling.json",
                             sys.argv[3] if len(sys.argv) > 3 else "call #5")
        sys.exit(0)
    ps = [1, 2, 4, 8, 16, 64, 256, 1024]
    for solver in ("multigrid", "fft"):
        table(f"Strong scaling, Ra = 1e7, 256x256x128, {solver}", strong((256, 256, 128), solver, ps, 1))
    for solver in ("multigrid", "fft"):
        table(f"Strong scaling, 2048^3 (from 8 GPUs, the fewest that hold it), {solver}",
              strong((2048, 2048, 2048), solver, [8, 16, 64, 256, 1024], 8))
    for solver in ("multigrid", "fft"):
        table(f"Weak scaling, 512x512x256 per GPU, {solver}", weak((512, 512, 256), solver, ps))
    for solver in ("multigrid", "fft"):
        large(solver)
