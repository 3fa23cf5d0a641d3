#!/usr/bin/env bash
# The GPU round on the H200 test machine (see ../shared/device/README.md): run from the
# repository root there, with .devpack (made by tools/h200_pack.sh) carried along.
# Logs and JSON go under $OUT when set. Sections: tests, sanitizer, solver, small, case,
# survive (checkpoint cost and a SIGTERM stop at Ra = 1e7), lock2d (bouss front: the 2D lock
# exchange's front speeds at three resolutions), precision (paper 004's Table IV:
# the lock exchange and Ra = 1e7 in double and single), output (the cost of output streams
# at Ra = 1e7: docs/performance.md), compare (this build against the one packed in
# .devpack-old, when present, on the same machine), developed (Ra = 1e7 from rest into
# developed convection: V-cycles per solve over time, this build and .devpack-old),
# tridiag (batched tridiagonal solves against cuSPARSE at 512x512x128 and 64x64x1024),
# lines (the line multigrid against the point multigrid: 256x256x128 and 512x512x128 at
# several aspect ratios), stretched (Ra = 1e7 on a tanh-stretched z with each solver against
# the uniform grid's step), model (the model problem of papers 000/001 at nu_CFL = 8.4 with
# line_pcg, line_multigrid and cuSPARSE's CSR PCG, then paper 001's Figure 2 sweep of nu_CFL),
# linecompare (the line multigrid of this build against .devpack-old's: the pressure box,
# the model problem and the stretched Ra = 1e7 step, alternating on one machine), fourier
# (the Fourier-tridiagonal pressure solve against cuFFT's fully periodic 3D solve), devbench
# (README's developed-flow checkpoint of Ra = 1e7, made when missing, then bench from it:
# fft and multigrid, fp64 and fp32, the multigrid's first guess previous and extrapolated),
# profile (ncu: each kernel's time and DRAM bytes in the Ra = 1e7 step; PROFILE_SOLVER picks
# the solver), tableone (paper 004's Table I: this build against the variant builds carried
# in .variants/{plain,cg,tex,unpadded} (those present), made by tools/h200_variants.sh), largest (the largest
# grids: Ra = 1e7 with fft at 1088x1088x1056 in fp64 and 1408x1408x1120 in fp32, a few
# steps each, with bouss check's memory line), devcompare (developed Ra = 1e7, this build
# against .devpack-old: fft fp64/fp32 and multigrid, then the fft step's check cadence and graph),
# fixedcycles (the multigrid's divergence step by step with its cycles fixed between checks),
# mpi (1, 2 and 4 ranks (MPI_NP) on the machine's GPUs, round robin: bench of Ra = 1e7 from
# rest with the multigrid, fft and line multigrid on the blocks (MPI_SOLVERS), the messages by
# each path of MPI_PATHS (nccl needs a GPU a rank; default "mpi host")).
set -uo pipefail
out=${OUT:-/tmp/bouss_h200}; mkdir -p "$out"
. .devpack/env
bin=.devpack/bin
sections=${*:-tests sanitizer solver small case survive}
export BOUSS_EXE=$PWD/$bin/bouss BOUSS_SOURCE_DIR=$PWD
# The machine's own mpirun (Open MPI with its CUDA extension) for the MPI tests and runs.
export BOUSS_MPIEXEC=$(command -v mpirun || true) OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
nvidia-smi -L
step() { echo; echo "=== $*"; }
has() { [[ " $sections " == *" $1 "* ]]; }

if has tests; then
  step "gpu tests"
  $bin/bouss_gpu_tests 2>&1 | tee "$out/gpu_tests.log" | grep -E "OK|FAILED|PASSED|Failure|error" | tail -30
fi
if has sanitizer; then
  step "compute-sanitizer memcheck"
  compute-sanitizer --tool memcheck --error-exitcode 9 $bin/bouss_gpu_tests \
    --gtest_filter='GpuDeviceTimeStep*:GpuStepGraph*:GpuFixedPasses*:GpuTridiagonal*:GpuLineMultigrid*:GpuLinePcg*:GpuFourierSolver*:GpuAgreement.Stretched*:GpuOperators*:GpuGhostFill*:GpuFieldOps*:GpuProfiles*:GpuProjection.LeavesDivergenceAtRoundOffWithPlates:GpuMultigrid.*:GpuRestart.StoppedAndRestarted*:GpuOutputStreams.PlanesProfiles*:GpuMemoryEstimate.*:GpuLockExchangeDiagnostics*:GpuRestart.ALockExchanges*' 2>&1 | tail -4
fi
if has precision; then
  step "paper 004 Table IV: lock exchange at 64^3, 128^3, 256^3 (tolerance 1e-4), then Ra = 1e7 (tolerance 1e-4 and 1e-5)"
  run_bench() {  # tag case n extra-sets...
    local tag=$1 case=$2 n=$3; shift 3
    $bin/bouss bench cases/$case.json --backend cuda --set "grid.n=$n" "$@" --steps 30 --warmup 10 --json \
      > "$out/precision_${case}_${tag}.json" 2> "$out/precision_${case}_${tag}.log" || echo "FAILED $tag $case $n"
  }
  for n in 64 128 256; do
    g="[$n,$n,$n]"
    run_bench ${n}_fp64_all lock_exchange $g --set precision=double --set pressure.mixed_precision=false
    run_bench ${n}_fp64_mixed lock_exchange $g --set precision=double --set pressure.mixed_precision=true
    run_bench ${n}_fp32 lock_exchange $g --set precision=single
  done
  g="[256,256,128]"
  for tol in 1e-4 1e-5; do
    run_bench fp64_all_$tol rayleigh_benard_ra1e7 $g --set precision=double --set pressure.mixed_precision=false --set pressure.tolerance=$tol
    run_bench fp64_mixed_$tol rayleigh_benard_ra1e7 $g --set precision=double --set pressure.mixed_precision=true --set pressure.tolerance=$tol
    run_bench fp32_$tol rayleigh_benard_ra1e7 $g --set precision=single --set pressure.tolerance=$tol
  done
  python3 -c '
import glob, json, os, sys
for f in sorted(glob.glob(os.path.join(sys.argv[1], "precision_*.json"))):
    r = json.load(open(f))
    print("%-45s %8.3f ms/step  cycles %.2f  floor %.3f ms (%.0f%% of it)  %.1f GB/step" % (
        os.path.basename(f)[10:-5], r["ms_per_step"], r["mg_cycles_per_step"], r["bandwidth_floor_ms"],
        100 * r["fraction_of_floor"], r["bytes_per_step"] * 1e-9))' "$out"
fi
if has output; then
  # Two runs of the bench: the configurations that write much, 50 timed steps each (at least
  # 20 records), and those that write little, 400 steps, so that the end of the timed region
  # (the last records, close, fsync, XDMF: finish_ms) weighs little against the steps.
  step "output bench: paper 004 Ra = 1e7, 256x256x128 from rest (docs/performance.md)"
  all='"fields":["T","u","v","w","p"]'
  $bin/bouss bench cases/rayleigh_benard_ra1e7.json --backend cuda --steps 50 --warmup 20 \
    --output-every 1,10 --output-fields all,T --output-precision double,float \
    --stream '{"fields":["T"],"interval_steps":10,"compression":{"deflate":1}}' \
    --stream '{"fields":["T"],"interval_steps":1,"precision":"float","compression":{"deflate":1,"significant_digits":3}}' \
    --stream "{$all,\"interval_steps\":10,\"precision\":\"float\",\"compression\":{\"deflate\":1,\"significant_digits\":3}}" \
    --json > "$out/output_bench_ra1e7.json" 2> "$out/output_bench.log"
  $bin/bouss bench cases/rayleigh_benard_ra1e7.json --backend cuda --steps 400 --warmup 20 \
    --stream "{$all,\"region\":{\"z\":0.5},\"interval_steps\":1}" \
    --stream "{$all,\"region\":{\"z\":0.5},\"interval_steps\":1,\"precision\":\"float\"}" \
    --stream '{"fields":["T"],"region":{"z":0.5},"interval_steps":1,"precision":"float"}' \
    --stream '{"fields":["T"],"interval_steps":50,"precision":"float"}' \
    --stream '{"profiles":true,"interval_steps":1}' \
    --stream '{"profiles":true,"interval_steps":10}' \
    --json > "$out/output_bench_small_ra1e7.json" 2> "$out/output_bench_small.log"
  python3 -c '
import json, sys
for f in sys.argv[1:]:
    r = json.load(open(f))
    for c in r["configs"]:
        print("%-38s %5d %8.3f ms/step %+7.1f%% vs none (%.3f) bound %+6.1f%% %8.3f MB/step writer %.2f disk %.2f compr %.3f GB/s end %.0f ms" % (
            c["config"], c["steps"], c["ms_per_step"], 100 * c["over_no_output"], c["no_output_ms_per_step"], 100 * c["over_bound"],
            c["bytes_per_step"] * 1e-6, c["writer_GBps"], c["disk_GBps"], c["compressor_GBps"], c["finish_ms"]))' \
    "$out/output_bench_ra1e7.json" "$out/output_bench_small_ra1e7.json"
fi
if has solver; then
  step "bench relax: paper 004 Figure 2 crossover"
  $bin/bouss bench relax --sizes 2,3,4,5,6,8,10,12,16,24,32,64,128 2>&1 | tail -15
  summary() {
    python3 -c '
import json, sys
for f in sys.argv[1:]:
    for r in json.load(open(f)):
        print("{bc:9} {solver:9} cycles {cycles:5} factor {convergence_factor:.3f} {ms:9.3f} ms  "
              "{bytes_per_cell:6.0f} B/cell  {effective_GBps:7.1f} GB/s  floor {floor_ms:.3f} ms  "
              "final {final_max_residual:.1e}".format(**r))' "$@"
  }
  for n in 128,128,128 256,256,128 384,384,192; do
    step "bench poisson $n to 1e-8 (cold start)"
    $bin/bouss bench poisson --n $n --bc mixed --solver mg,mg_mixed,csr_cg --repeats 3 --json > "$out/poisson_mixed_${n//,/x}.json"
    $bin/bouss bench poisson --n $n --bc periodic --solver mg,mg_mixed,cufft3d --repeats 3 --json > "$out/poisson_periodic_${n//,/x}.json"
    summary "$out/poisson_mixed_${n//,/x}.json" "$out/poisson_periodic_${n//,/x}.json"
  done
  step "multigrid options at 256x256x128 (mixed bc, cold start to 1e-8)"
  for opts in "--cuda-graphs false" "--fmg true" "--cpu-coarse-cells 64" "--cpu-coarse-cells 512" "--cpu-coarse-cells 4096" \
              "--pre-sweeps 1 --post-sweeps 1" "--pre-sweeps 2 --post-sweeps 1" "--pre-sweeps 1 --post-sweeps 2" \
              "--pre-sweeps 3 --post-sweeps 3"; do
    echo "-- $opts"
    $bin/bouss bench poisson --n 256,256,128 --bc mixed --solver mg,mg_mixed --repeats 5 $opts 2>&1 | grep -E " mg" | cut -c12-
  done
fi
if has small; then
  step "bench: onset-size grids (latency-bound V-cycles), defaults and all levels on the GPU"
  for c in "onset_no_slip [64,32,64]" "onset_no_slip [128,64,128]" "onset_free_slip [128,64,128]" "onset_cube [64,64,64]"; do
    set -- $c
    for v in "" "--set pressure.cpu_coarse_cells=0"; do
      echo "-- $1 $2 $v"
      $bin/bouss bench cases/$1.json --backend cuda --set grid.n=$2 $v --steps 300 --warmup 30 2>&1 | grep -E "median|cycles"
    done
  done
fi
if has case; then
  step "bench: paper 004 Ra = 1e7, 256x256x128, cuda (default, then variants)"
  $bin/bouss bench cases/rayleigh_benard_ra1e7.json --backend cuda --steps 20 --warmup 20 --json | tee "$out/bench_ra1e7_cuda.json" \
    | grep -E "ms_per_step\"|cycles|effective|floor_ms"
  for v in pressure.cuda_graphs=false pressure.fmg=true pressure.mixed_precision=false pressure.cpu_coarse_cells=0 \
           pressure.cpu_coarse_cells=64 pressure.cpu_coarse_cells=4096 "pressure.pre_sweeps=1 --set pressure.post_sweeps=1"; do
    echo "-- $v"
    $bin/bouss bench cases/rayleigh_benard_ra1e7.json --backend cuda --steps 20 --warmup 20 --set $v 2>&1 | grep -E "median|cycles"
  done
  step "bench: paper 004 Ra = 1e7, cpu ($(nproc) threads)"
  $bin/bouss bench cases/rayleigh_benard_ra1e7.json --backend cpu --steps 3 --warmup 2 --json | tee "$out/bench_ra1e7_cpu.json" \
    | grep -E "ms_per_step\"|cycles"
fi
if has lock2d; then
  step "bouss front: the 2D lock exchange (Gr = 1.25e6) at nz = 64, 128, 256, double, then single at 128"
  $bin/bouss front cases/lock_exchange_2d.json --backend cuda --resolutions 64,128,256 --json \
    > "$out/front_lock_exchange_2d.json" 2> "$out/front_lock_exchange_2d.log"; tail -25 "$out/front_lock_exchange_2d.log"
  $bin/bouss front cases/lock_exchange_2d.json --backend cuda --resolutions 128 --set precision=\"single\" --set pressure.tolerance=1e-4 --json \
    > "$out/front_lock_exchange_2d_single.json" 2> "$out/front_lock_exchange_2d_single.log"; tail -12 "$out/front_lock_exchange_2d_single.log"
  step "bench: the 2D lock exchange at 4096x1x256"
  $bin/bouss bench cases/lock_exchange_2d.json --backend cuda --set "grid.n=[4096,1,256]" --steps 50 --warmup 20 2>&1 | grep -E "median|cycles|floor"
fi
if has survive; then
  step "checkpoints of paper 004's case (256x256x128): size and time, then a SIGTERM stop"
  d=$(mktemp -d)
  $bin/bouss run cases/rayleigh_benard_ra1e7.json --backend cuda --output $d/rb.nc --set time.steps=40 \
    --set output.interval_steps=1000 --set checkpoint.interval_steps=10 --progress 0 2>&1 | grep -E "checkpoint|done"
  ls -la $d
  $bin/bouss run cases/rayleigh_benard_ra1e7.json --backend cuda --output $d/stop.nc --set time.steps=100000 \
    --set output.interval_steps=1000 --progress 0 > $d/stop.log 2>&1 &
  pid=$!; sleep 8; kill -TERM $pid; wait $pid; echo "exit after SIGTERM: $?"; grep -E "stopped|checkpoint" $d/stop.log
  rm -rf $d
fi
if has developed; then
  # The Ra = 1e7 run from rest into developed convection, no output: the V-cycles of each
  # solve (the progress lines' mg) and the wall time, with this build and, when present, the
  # one in .devpack-old.
  step "paper 004 Ra = 1e7 from rest to t = ${DEVELOPED_END:-40}, no output: V-cycles over time"
  for b in .devpack-old .devpack; do
    [ -x $b/bin/bouss ] || continue
    echo "-- $b"
    (. $b/env; $b/bin/bouss run cases/rayleigh_benard_ra1e7.json --backend cuda --set time.end=${DEVELOPED_END:-40} \
       --set 'output=[]' --progress 2 2>&1) | grep -E "step |done" | sed -E 's/ETA [0-9:]+ //' | awk 'NR % 2 == 1 || /done/'
  done
fi
if has devbench; then
  ck=output/rayleigh_benard_ra1e7
  step "developed Ra = 1e7: the README's checkpoint ($ck.checkpoint.*.nc), then bench --steps 50 --warmup 20 from it"
  if ! ls $ck.checkpoint.*.nc > /dev/null 2>&1; then
    /usr/bin/time -f "checkpoint run: %e s wall" $bin/bouss run cases/rayleigh_benard_ra1e7.json --backend cuda \
      --set time.end=40 --set checkpoint.interval=40 --set 'output=[]' --set checkpoint.file=$ck --progress 0 2>&1 | tail -3
  fi
  ls -la $ck.checkpoint.*.nc
  devbench() {  # tag, then --set arguments
    local tag=$1; shift
    $bin/bouss bench cases/rayleigh_benard_ra1e7.json --backend cuda --steps ${DEVBENCH_STEPS:-50} --warmup 20 --json "$@" \
      > "$out/devbench_$tag.json" 2> "$out/devbench_$tag.log" || { echo "FAILED $tag"; tail -3 "$out/devbench_$tag.log"; return; }
    python3 -c '
import json, sys; r = json.load(open(sys.argv[1]))
print("%-22s %7.3f ms/step  cycles %.2f (%d-%d)  floor %.3f ms (%.0f%%)  max|div u| %.1e  KE %.4g  t %.2f..%.2f from %s" % (
    sys.argv[2], r["ms_per_step"], r["mg_cycles_per_step"], r["cycles_min"], r["cycles_max"], r["bandwidth_floor_ms"],
    100 * r["fraction_of_floor"], r["max_divergence"], r["kinetic_energy"], r["timed_from_time"], r["time"], r["from"]))' "$out/devbench_$tag.json" $tag
  }
  for round in ${DEVBENCH_ROUNDS:-1}; do
    devbench fft_fp64
    devbench fft_fp32 --set precision=single --set pressure.tolerance=2e-5
    devbench mg_fp64_previous --set pressure.solver=multigrid --set pressure.first_guess=previous
    devbench mg_fp64_extrapolated --set pressure.solver=multigrid --set pressure.first_guess=extrapolated
    devbench mg_fp64_extrap_5e-9 --set pressure.solver=multigrid --set pressure.first_guess=extrapolated --set pressure.tolerance=5e-9
    devbench mg_fp64_extrap_fmg --set pressure.solver=multigrid --set pressure.first_guess=extrapolated --set pressure.fmg=true
    devbench mg_fp32_previous --set precision=single --set pressure.tolerance=1e-4 --set pressure.solver=multigrid --set pressure.first_guess=previous
    devbench mg_fp32_extrapolated --set precision=single --set pressure.tolerance=1e-4 --set pressure.solver=multigrid --set pressure.first_guess=extrapolated
  done
fi
if has devcompare && [ -x .devpack-old/bin/bouss ]; then
  # Developed Ra = 1e7 (a t = 40 checkpoint made by .devpack-old, which both builds read),
  # this build against .devpack-old alternating, then this build's fft step with its
  # residual check every step (no graph) and with checks every 10 steps but no graph.
  ck=output/devcompare_ra1e7
  step "developed Ra = 1e7: this build against .devpack-old, alternating (bench --steps 100 --warmup 20 from $ck)"
  if ! ls $ck.checkpoint.*.nc > /dev/null 2>&1; then
    (. .devpack-old/env; .devpack-old/bin/bouss run cases/rayleigh_benard_ra1e7.json --backend cuda --set time.end=40 \
      --set checkpoint.interval=40 --set 'output=[]' --set checkpoint.file=$ck --progress 0 2>&1 | tail -1)
  fi
  cmpbench() {  # build tag --set arguments...
    local b=$1 tag=$2; shift 2
    (. $b/env; $b/bin/bouss bench cases/rayleigh_benard_ra1e7.json --backend cuda --from $(ls $ck.checkpoint.*.nc | tail -1) \
       --steps 100 --warmup 20 --json "$@") > "$out/devcompare_${tag}_${b#.}.json" 2> "$out/devcompare_${tag}_${b#.}.log" \
      || { echo "FAILED $b $tag"; tail -3 "$out/devcompare_${tag}_${b#.}.log"; return; }
    python3 -c '
import json, sys; r = json.load(open(sys.argv[1]))
print("%-13s %-26s %7.3f ms/step  cycles %.2f  floor %.3f ms (%.0f%%)  max|div u| %.1e" % (sys.argv[2], sys.argv[3], r["ms_per_step"],
    r["mg_cycles_per_step"], r["bandwidth_floor_ms"], 100 * r["fraction_of_floor"], r["max_divergence"]))' \
      "$out/devcompare_${tag}_${b#.}.json" $b $tag
  }
  for round in 1 2; do
    for b in .devpack-old .devpack; do
      cmpbench $b fft_fp64
      cmpbench $b fft_fp32 --set precision=single --set pressure.tolerance=2e-5
      cmpbench $b mg_fp64 --set pressure.solver=multigrid
    done
    cmpbench .devpack fft_fp64_check_every_step --set pressure.check_interval=1
    cmpbench .devpack fft_fp64_no_graph --set pressure.cuda_graphs=false
    cmpbench .devpack fft_fp32_check_every_step --set precision=single --set pressure.tolerance=2e-5 --set pressure.check_interval=1
    cmpbench .devpack mg_fp64_device_levels --set pressure.solver=multigrid --set pressure.cpu_coarse_cells=0
    for every in 2 5 10; do
      cmpbench .devpack mg_fp64_device_levels_check_$every --set pressure.solver=multigrid --set pressure.cpu_coarse_cells=0 \
        --set pressure.check_interval=$every
    done
  done
fi
if has fixedcycles; then
  # The multigrid's V-cycles fixed between residual checks (pressure.check_interval), every
  # level on the device: Ra = 1e7 from rest to t = 40 with the diagnostics series every step
  # (max|div u|, cycles), checked every step and every 10; the series come back in $out.
  step "multigrid cycles fixed between checks: Ra = 1e7 from rest to t = 40, the series every step"
  for every in ${FIXED_INTERVALS:-1 10}; do
    $bin/bouss run cases/rayleigh_benard_ra1e7.json --backend cuda --set time.end=${FIXED_END:-40} \
      --set pressure.solver=multigrid --set pressure.cpu_coarse_cells=0 --set pressure.check_interval=$every \
      --set "output={\"file\": \"$out/fixedcycles_$every.nc\", \"fields\": [], \"profiles\": [\"T_mean\"], \"interval_steps\": 1000000, \"diagnostics_interval_steps\": 1}" \
      --progress 0 2>&1 | tail -1
  done
  step "multigrid cycles fixed between checks on smaller grids: bench, host coarse levels (the default) against all on the device checked every 10 steps"
  for c in "onset_no_slip [64,32,64] 300 30" "onset_cube [64,64,64] 300 30" "rayleigh_benard [48,48,24] 300 30" \
           "lock_exchange [128,128,128] 50 20"; do
    set -- $c
    for variant in "" "--set pressure.cpu_coarse_cells=0 --set pressure.check_interval=10"; do
      $bin/bouss bench cases/$1.json --backend cuda --set grid.n=$2 --set pressure.solver=multigrid --steps $3 --warmup $4 \
        --json $variant | python3 -c '
import json, sys; r = json.load(sys.stdin)
print("%-16s %-14s %-52s %7.3f ms/step  cycles %.2f  max|div u| %.1e" % (sys.argv[1], sys.argv[2], sys.argv[3] or "defaults",
      r["ms_per_step"], r["mg_cycles_per_step"], r["max_divergence"]))' $1 $2 "$variant"
    done
  done
fi
if has profile; then
  # Each kernel of the developed Ra = 1e7 step (the devbench checkpoint when present): time
  # and DRAM bytes from ncu (clocks left alone), so each kernel's bandwidth shows.
  step "ncu: the kernels of ${PROFILE_SOLVER:-fft} steps at Ra = 1e7 (time, DRAM bytes, GB/s)"
  command -v nsys && nsys --version
  ncu --clock-control none --launch-skip ${PROFILE_SKIP:-600} --launch-count ${PROFILE_COUNT:-80} \
    --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum --csv --page raw --print-units base \
    $bin/bouss bench cases/rayleigh_benard_ra1e7.json --backend cuda --steps 40 --warmup 10 \
    --set pressure.solver=${PROFILE_SOLVER:-fft} ${PROFILE_SETS:-} > "$out/profile.csv" 2> "$out/profile.log"
  python3 -c '
import csv, sys, collections
rows = list(csv.reader(open(sys.argv[1])))
head = [i for i, r in enumerate(rows) if "Kernel Name" in r]
if not head: print(open(sys.argv[1]).read()[-3000:]); sys.exit()
h = rows[head[0]]; data = rows[head[0] + 2:]
k = h.index("Kernel Name"); t = h.index("gpu__time_duration.sum"); r = h.index("dram__bytes_read.sum"); w = h.index("dram__bytes_write.sum")
agg = collections.OrderedDict()
def num(x): return float(x.replace(",", "")) if x else 0.0
for d in data:
    if len(d) <= max(k, t, r, w): continue
    name = d[k][:90]; a = agg.setdefault(name, [0, 0.0, 0.0])
    a[0] += 1; a[1] += num(d[t]); a[2] += num(d[r]) + num(d[w])
total = sum(a[1] for a in agg.values())
print("units: time %s, bytes %s" % (rows[head[0] + 1][t], rows[head[0] + 1][r]))
for name, (n, ns, b) in sorted(agg.items(), key=lambda x: -x[1][1]):
    print("%4d x %9.1f us  %6.1f%%  %8.1f MB  %7.1f GB/s  %s" % (n, ns / n / 1e3, 100 * ns / total, b / n / 1e6, b / ns, name))
' "$out/profile.csv"
fi
if has tableone; then
  step "paper 004 Table I: __ldg (default) / plain / L2-only / texture loads, padded / unpadded rows (Ra = 1e7 from rest; 100 relaxations of 256^3)"
  for round in 1 2; do
    for v in default plain cg tex unpadded; do
      # A variant's libbouss.so, with its own executable where it has one (unpadded rows: the
      # layout is inline in the executable's code too), else this build's.
      if [ $v = default ]; then b=$bin/bouss; lib=""; else lib=$PWD/.variants/$v; b=.variants/$v/bouss; [ -x $b ] || b=$bin/bouss; fi
      [ $v = default ] || [ -f $lib/libbouss.so ] || continue
      for s in "fft_fp64" "fft_fp32 --set precision=single --set pressure.tolerance=1e-4" "mg_fp64 --set pressure.solver=multigrid"; do
        set -- $s; tag=$1; shift
        ms=$(LD_LIBRARY_PATH=${lib:+$lib:}$LD_LIBRARY_PATH $b bench cases/rayleigh_benard_ra1e7.json --backend cuda --from rest \
               --steps 30 --warmup 10 --json "$@" | python3 -c 'import json,sys; r=json.load(sys.stdin); print("%.3f ms/step (%.0f%% of its floor; KE %.15e, max div %.3e)" % (r["ms_per_step"], 100*r["fraction_of_floor"], r["kinetic_energy"], r["max_divergence"]))')
        echo "round $round $v $tag: $ms"
      done
      LD_LIBRARY_PATH=${lib:+$lib:}$LD_LIBRARY_PATH $b bench relax --sizes 256 --sweeps 100 2>&1 | grep "n = " | sed "s/^/round $round $v relax (cpu | launches | graph ms) /"
      [ $round = 1 ] && LD_LIBRARY_PATH=${lib:+$lib:}$LD_LIBRARY_PATH $b --version
    done
  done
fi
if has mpi; then
  step "MPI: 1, 2 and 4 ranks (MPI_NP) on the machine's GPUs (Ra = 1e7 from rest; the solvers on the blocks; messages by each of MPI_PATHS: nccl, mpi (CUDA-aware), host)"
  ompi_info 2>/dev/null | grep -i "cuda" | head -3
  for solver in ${MPI_SOLVERS:-multigrid fft line_multigrid}; do
    for grid in "[256,256,128]" "[512,512,512]"; do
      steps=$([ "$grid" = "[256,256,128]" ] && echo ${MPI_STEPS:-20} || echo 5)
      for np in ${MPI_NP:-1 2 4}; do
        paths=${MPI_PATHS:-mpi host}
        for staging in $paths; do
          [ $np = 1 ] && [ $staging != "${paths%% *}" ] && continue  # one rank sends nothing: once
          BOUSS_MESSAGES=$([ $np = 1 ] || echo $staging) mpirun -np $np --oversubscribe $bin/bouss bench cases/rayleigh_benard_ra1e7.json \
            --backend cuda --from rest --set "grid.n=$grid" --set "pressure.solver=\"$solver\"" --steps $steps --warmup 2 2>&1 \
            | grep -E "ranks, process|median|each rank|messages:|cycles per step|error" | sed "s/^/$solver $grid np $np $staging: /" | tee -a "$out/mpi.log"
        done
      done
    done
  done
fi
if has largest; then
  step "the largest grids one H200 holds (fft; 5 steps after 2; memory from bouss check)"
  nvidia-smi --query-gpu=memory.total,memory.used --format=csv
  for g in "double [1088,1088,1056] 1e-8" "single [1408,1408,1120] 1e-4" "double [1024,1024,1024] 1e-8"; do
    set -- $g
    $bin/bouss check cases/rayleigh_benard_ra1e7.json --backend cuda --set "grid.n=$2" --set precision=$1 \
      --set pressure.tolerance=$3 --set 'output=[]' 2>&1 | grep -E "^memory|^pressure"
    $bin/bouss bench cases/rayleigh_benard_ra1e7.json --backend cuda --from rest --set "grid.n=$2" --set precision=$1 \
      --set pressure.tolerance=$3 --steps 5 --warmup 2 2>&1 | grep -E "median|ns per cell|traffic|error|state timed" | sed "s/^/$1 $2: /"
  done
fi
if has tridiag; then
  step "batched tridiagonal solves along z against cuSPARSE (double; bytes: what each moves; useful: r read + x written)"
  for n in 512,512,128 64,64,1024 256,256,128 32,32,1024 16,16,1024; do
    $bin/bouss bench elliptic --backend cuda --n $n --aspect 4 --repeats 20 \
      --solver thomas,pcr,auto,cusparse_gtsv,cusparse_gtsv_interleaved 2>&1 | tee -a "$out/tridiag.log" | grep -v "^\[.*info.*backend"
    $bin/bouss bench elliptic --backend cuda --n $n --aspect 4 --repeats 20 --precision single \
      --solver thomas,pcr 2>&1 | tee -a "$out/tridiag.log"
  done
fi
if has lines; then
  step "line multigrid against point multigrid on the pressure equation (dz = 1/nz, dx = aspect dz), tolerance 1e-8"
  for n in 256,256,128 512,512,128; do
    for aspect in 1 4 8.4 32; do
      $bin/bouss bench elliptic --backend cuda --n $n --aspect $aspect --repeats 3 --tolerance 1e-8 \
        --solver line_multigrid,multigrid,line_pcg --json > "$out/lines_${n//,/x}_${aspect}.json" 2> "$out/lines_${n//,/x}_${aspect}.log" || echo "FAILED $n $aspect"
    done
  done
  python3 -c '
import glob, json, os, sys
for f in sorted(glob.glob(os.path.join(sys.argv[1], "lines_*.json"))):
    for r in json.load(open(f)):
        print("%-15s n=%-12s aspect %-5g %3d it  %8.3f ms  %7.3f ms/it  moved %5.0f GB/s (%.0f%% of copy)  final %.1e" % (
            r["solver"], "x".join(map(str, r["n"])), r["aspect"], r["iterations"], r["ms"], r["ms_per_iteration"],
            r["moved_GBps"], 100 * r["fraction_of_copy"], r["residual_history"][-1]))' "$out"
fi
if has model; then
  step "model problem (papers 000/001): -omega^2 (lap_h u + u_zz) + u = f on [0,1]^2 x [0,0.01], residual reduced 1e-5"
  model_table() {  # json files...
    python3 -c '
import json, sys
for f in sys.argv[1:]:
    for r in json.load(open(f)):
        print("%-15s n=%-12s nu_CFL %-6g %5d it  %9.3f ms  %7.3f ms/it  useful %5.0f GB/s  moved %5.0f GB/s (%.0f%% of copy %.0f)  final %.1e" % (
            r["solver"], "x".join(map(str, r["n"])), r["cfl"], r["iterations"], r["ms"], r["ms_per_iteration"],
            r["useful_GBps"], r["moved_GBps"], 100 * r["fraction_of_copy"], r["copy_GBps"], r["residual_history"][-1]))' "$@"
  }
  for n in 256,256,128 512,512,128; do
    tag=${n//,/x}
    $bin/bouss bench elliptic --backend cuda --n $n --cfl 8.4 --repeats 5 --tolerance 1e-5 \
      --solver line_pcg,line_multigrid,csr_cg,thomas --json > "$out/model_$tag.json" 2> "$out/model_$tag.log" || echo "FAILED model $n"
    $bin/bouss bench elliptic --backend cuda --n $n --cfl 8.4 --repeats 5 --tolerance 1e-5 --precision single \
      --solver line_pcg,line_multigrid --json > "$out/model_${tag}_single.json" 2> "$out/model_${tag}_single.log" || echo "FAILED model $n single"
    model_table "$out/model_$tag.json"
    echo "(single precision:)"
    model_table "$out/model_${tag}_single.json"
  done
  step "paper 001 Figure 2: iterations and time against nu_CFL at 512x512x128"
  for nu in 0.84 2.1 4.2 8.4 16.8 42 84 840; do
    $bin/bouss bench elliptic --backend cuda --n 512,512,128 --cfl $nu --repeats 2 --tolerance 1e-5 \
      --solver line_pcg,line_multigrid --json > "$out/figure2_$nu.json" 2> "$out/figure2_$nu.log" || echo "FAILED nu $nu"
    model_table "$out/figure2_$nu.json"
  done
fi
if has fourier; then
  step "the Fourier-tridiagonal solve against cuFFT's fully periodic 3D solve (bench poisson, 256x256x128 and 512x512x128)"
  for n in 256,256,128 512,512,128; do
    $bin/bouss bench poisson --backend cuda --n $n --bc mixed --solver fft,mg_mixed --repeats 10 2>&1 | grep -E "fft|mg_mixed"
    $bin/bouss bench poisson --backend cuda --n $n --bc mixed --solver fft --precision single --tolerance 1e-5 --repeats 10 2>&1 | grep -E "fft"
    $bin/bouss bench poisson --backend cuda --n $n --bc periodic --solver cufft3d --repeats 10 2>&1 | grep -E "cufft3d"
  done
fi
if has stretched; then
  step "Ra = 1e7 (256x256x128): uniform z with each solver, then tanh-stretched z (parameter 1.5) with each that takes it"
  run_ra() {  # tag sets...
    local tag=$1; shift
    $bin/bouss bench cases/rayleigh_benard_ra1e7.json --backend cuda --steps 30 --warmup 10 --json "$@" \
      > "$out/stretched_$tag.json" 2> "$out/stretched_$tag.log" || { echo "FAILED $tag"; tail -3 "$out/stretched_$tag.log"; }
  }
  run_ra uniform_multigrid --set pressure.solver=\"multigrid\"
  run_ra uniform_line --set pressure.solver=\"line_multigrid\"
  run_ra uniform_auto --set pressure.solver=\"auto\"
  z='grid.z={"stretching": "tanh", "parameter": 1.5}'
  run_ra stretched_line --set "$z" --set pressure.solver=\"line_multigrid\"
  run_ra stretched_pcg --set "$z" --set pressure.solver=\"line_pcg\"
  run_ra stretched_fft --set "$z" --set pressure.solver=\"fft\"
  run_ra uniform_fft --set pressure.solver=\"fft\"
  run_ra uniform_fft_single --set pressure.solver=\"fft\" --set precision=\"single\" --set pressure.tolerance=1e-5
  run_ra stretched_line_v11 --set "$z" --set pressure.solver=\"line_multigrid\" --set pressure.pre_sweeps=1 --set pressure.post_sweeps=1
  run_ra stretched_auto --set "$z" --set pressure.solver=\"auto\"
  python3 -c '
import glob, json, os, sys
for f in sorted(glob.glob(os.path.join(sys.argv[1], "stretched_*.json"))):
    r = json.load(open(f))
    print("%-28s %8.3f ms/step  cycles %.2f  floor %.3f ms (%.0f%% of it)  %.2f GB/step  div %.1e" % (
        os.path.basename(f)[10:-5], r["ms_per_step"], r["mg_cycles_per_step"], r["bandwidth_floor_ms"],
        100 * r["fraction_of_floor"], r["bytes_per_step"] * 1e-9, r["max_divergence"]))' "$out"
  grep -h "auto:" "$out"/stretched_*auto.log | head -2
fi
if has linecompare && [ -x .devpack-old/bin/bouss ]; then
  step "line multigrid: this build against .devpack-old, alternating on one machine"
  for round in 1 2; do
    for b in .devpack-old .devpack; do
      for args in "--n 256,256,128 --aspect 8.4 --tolerance 1e-8" "--n 512,512,128 --aspect 8.4 --tolerance 1e-8" \
                  "--n 512,512,128 --cfl 8.4 --tolerance 1e-5" "--n 256,256,128 --aspect 8.4 --tolerance 1e-8 --pre-sweeps 1 --post-sweeps 1"; do
        (. $b/env; $b/bin/bouss bench elliptic --backend cuda $args --repeats 3 --solver line_multigrid --json) | python3 -c '
import json, sys; r = json.load(sys.stdin)[0]
print("%-13s %-70s %3d it  %8.3f ms  %7.3f ms/it  final %.1e" % (sys.argv[1], sys.argv[2], r["iterations"], r["ms"], r["ms_per_iteration"], r["residual_history"][-1]))' $b "$args"
      done
      ms=$( (. $b/env; $b/bin/bouss bench cases/rayleigh_benard_ra1e7.json --backend cuda --steps 20 --warmup 10 --json \
              --set 'grid.z={"stretching": "tanh", "parameter": 1.5}') | python3 -c 'import json,sys; r=json.load(sys.stdin); print(r["ms_per_step"], "ms/step, cycles", r["mg_cycles_per_step"])')
      echo "stretched Ra1e7 auto $b round $round: $ms"
    done
  done
fi
if has compare && [ -x .devpack-old/bin/bouss ]; then
  step "this build against .devpack-old, alternating on one machine (median ms/step)"
  for c in "rayleigh_benard_ra1e7 [256,256,128] 20 20" "onset_no_slip [64,32,64] 300 30" "onset_cube [64,64,64] 300 30" \
           "rayleigh_benard [48,48,24] 300 30"; do
    set -- $c
    for round in 1 2; do
      for b in .devpack-old .devpack; do
        ms=$( (. $b/env; $b/bin/bouss bench cases/$1.json --backend cuda --set grid.n=$2 --steps $3 --warmup $4 --json) \
              | python3 -c 'import json,sys; print(json.load(sys.stdin)["ms_per_step"])')
        echo "$1 $2 $b round $round: $ms ms/step"
      done
    done
  done
  for b in .devpack-old .devpack; do
    (. $b/env; $b/bin/bouss bench cases/rayleigh_benard.json --backend cpu --steps 20 --warmup 5 --json) | python3 -c '
import json, sys; r = json.load(sys.stdin)
print("cpu rayleigh_benard %s: %.3f ms/step, copy %.1f GB/s, %.0f%% of the floor" % (sys.argv[1], r["ms_per_step"], r["copy_bandwidth_GBps"], 100 * r["fraction_of_floor"]))' $b
  done
fi
