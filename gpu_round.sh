#!/usr/bin/env bash
# untracked: this session's GPU round (deleted after)
set -uo pipefail
. .devpack/env
export BOUSS_EXE=$PWD/.devpack/bin/bouss BOUSS_SOURCE_DIR=$PWD
nvidia-smi -L
part=${1:-a}
ms() { python3 -c 'import json,sys; r=json.load(sys.stdin); print("%.3f ms/step floor %.0f%% cycles %s" % (r["ms_per_step"], 100*r.get("fraction_of_floor",0), r.get("pressure_cycles_per_step", r.get("cycles_per_step","?"))))' 2>/dev/null || echo FAILED; }
bench() { # pack case n steps warmup extra...
  local b=$1 c=$2 n=$3 s=$4 w=$5; shift 5
  (. $b/env; $b/bin/bouss bench cases/$c.json --backend cuda --set grid.n=$n --from rest --steps $s --warmup $w --json "$@" 2>/tmp/bench_err.log) | ms | tr -d '\n'
  [ -s /tmp/bench_err.log ] && grep -iE "error|expected" /tmp/bench_err.log | head -1 | cut -c1-200; echo
}
if [ "$part" = a ]; then
  echo "=== gpu tests"
  timeout 420 .devpack/bin/bouss_gpu_tests > $OUT/gpu_tests.log 2>&1; grep -E "FAILED|PASSED|Failure" $OUT/gpu_tests.log | tail -8
  echo "=== memcheck"
  timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 .devpack/bin/bouss_gpu_tests --gtest_filter='GpuPlaneR2R*:GpuFourierSolver*:GpuProjection.LeavesDivergenceAtRoundOffInAClosedBox*' 2>&1 | tail -3
  echo "=== racecheck"
  timeout 100 compute-sanitizer --tool racecheck --error-exitcode 9 .devpack/bin/bouss_gpu_tests --gtest_filter='GpuPlaneR2R*' 2>&1 | tail -2
fi
if [ "$part" = b ]; then
  echo "=== walled cases, old then new, two rounds (ms/step)"
  for c in "lock_exchange [128,128,128] 50 20" "lock_exchange [256,256,256] 30 10" "lock_exchange_2d [2048,1,128] 200 50" \
           "onset_no_slip [64,32,64] 300 30" "onset_cube [64,64,64] 300 30" "nusselt_cube [16,16,16] 300 30" \
           "rayleigh_benard_ra1e7 [256,256,128] 30 10" "rayleigh_benard [48,48,24] 300 30"; do
    set -- $c
    for round in 1 2; do for b in .devpack-old .devpack; do echo "$1 $2 $b r$round: $(bench $b $1 $2 $3 $4)"; done; done
  done
  echo "=== fp32"
  for c in "lock_exchange [128,128,128] 50 20" "lock_exchange [256,256,256] 30 10" "lock_exchange_2d [2048,1,128] 200 50"; do
    set -- $c
    for b in .devpack-old .devpack; do echo "$1 $2 fp32 $b: $(bench $b $1 $2 $3 $4 --set precision=single)"; done
  done
  echo "=== multigrid baselines (new build)"
  for c in "lock_exchange [128,128,128] 50 20" "lock_exchange [256,256,256] 30 10" "lock_exchange_2d [2048,1,128] 100 20" "onset_no_slip [64,32,64] 100 20" "onset_cube [64,64,64] 100 20"; do
    set -- $c
    echo "$1 $2 multigrid: $(bench .devpack $1 $2 $3 $4 --set 'pressure.solver="multigrid"')"
  done
  echo "=== solve alone 256x256x128"
  for b in .devpack-old .devpack; do
    (. $b/env; $b/bin/bouss bench poisson --backend cuda --n 256,256,128 --bc neumann --solver direct --repeats 10 2>&1 | grep -E "direct|fft" | tail -2 | sed "s|^|$b neumann: |")
  done
  .devpack/bin/bouss bench poisson --backend cuda --n 256,256,128 --bc mixed --solver direct --repeats 10 2>&1 | grep -E "direct|fft" | tail -1 | sed "s|^|mixed: |"
  .devpack/bin/bouss bench poisson --backend cuda --n 256,256,128 --bc periodic --solver cufft3d --repeats 10 2>&1 | grep cufft3d | tail -1
  .devpack/bin/bouss bench poisson --backend cuda --n 256,256,128 --bc neumann --solver direct --precision single --tolerance 1e-5 --repeats 10 2>&1 | grep -E "direct" | tail -1 | sed "s|^|fp32 neumann: |"
  echo "=== peer lock exchange 128^3"
  for p in double float; do OCU_KERNEL_SYNC=0 timeout 120 .peer/bin/ocu_bench lockex --prec $p --res 128 --warmup 20 --steps 50 2>/dev/null | tail -1 | python3 -c 'import json,sys; r=json.load(sys.stdin); print("peer", r["precision"], r["ms_per_step"], "ms/step", r["vcycles_per_step"], "V-cycles")'; done
fi
if [ "$part" = c ]; then
  echo "=== onset no-slip end to end (new)"
  start=$(date +%s.%N)
  timeout 300 .devpack/bin/bouss onset cases/onset_no_slip.json --resolutions 16,32,64 --backend cuda > $OUT/onset.log 2>&1; echo "rc $?"
  echo "wall $(python3 -c "import time; print(round(time.time() - $start, 1))") s"; tail -6 $OUT/onset.log
fi
if [ "$part" = p ]; then
  prof() { # case n skip count
    echo "=== ncu $1 $2"
    ncu --clock-control none --launch-skip $3 --launch-count $4 --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum --csv --page raw --print-units base \
      .devpack/bin/bouss bench cases/$1.json --backend cuda --set grid.n=$2 --from rest --steps 20 --warmup 5 > /tmp/prof.csv 2>/tmp/prof.log
    python3 - /tmp/prof.csv <<'PY'
import csv, sys, collections, re
rows = list(csv.reader(open(sys.argv[1])))
head = [i for i, r in enumerate(rows) if "Kernel Name" in r]
if not head: print(open(sys.argv[1]).read()[-2000:]); sys.exit()
h = rows[head[0]]; data = rows[head[0] + 2:]
k = h.index("Kernel Name"); t = h.index("gpu__time_duration.sum"); r = h.index("dram__bytes_read.sum"); w = h.index("dram__bytes_write.sum")
agg = collections.OrderedDict()
def num(x): return float(x.replace(",", "")) if x else 0.0
for d in data:
    if len(d) <= max(k, t, r, w): continue
    name = d[k]
    m = re.search(r"for_each_kernel[^<]*<(?:\d+, )?(.*?)\(", name)
    name = (m.group(1) if m else name)[:100]
    a = agg.setdefault(name, [0, 0.0, 0.0]); a[0] += 1; a[1] += num(d[t]); a[2] += num(d[r]) + num(d[w])
total = sum(a[1] for a in agg.values())
print("kernels %d, total %.1f us" % (sum(a[0] for a in agg.values()), total / 1e3))
for name, (n, ns, b) in sorted(agg.items(), key=lambda x: -x[1][1])[:30]:
    print("%4d x %8.1f us %5.1f%% %8.2f MB %6.0f GB/s  %s" % (n, ns / n / 1e3, 100 * ns / total, b / n / 1e6, b / ns, name))
PY
  }
  prof lock_exchange_2d [2048,1,128] 400 200
  prof lock_exchange [256,256,256] 300 60
  prof onset_no_slip [64,32,64] 400 100
fi
