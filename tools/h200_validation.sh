#!/usr/bin/env bash
# Validation tables on the H200 (validation/README.md): run from the repository root there
# with .devpack carried (tools/h200_pack.sh). Sections: free_slip no_slip no_slip_128 cube nusselt.
# JSON and logs go under $OUT. A finest row of the onset tables is run separately, its
# bracket predicted from the coarser rows, under a time limit (FINEST_LIMIT seconds).
set -uo pipefail
out=${OUT:-/tmp/bouss_validation}; mkdir -p "$out"
. .devpack/env
bin=.devpack/bin
sections=${*:-free_slip no_slip cube nusselt}  # no_slip_128 only when named
has() { [[ " $sections " == *" $1 "* ]]; }
predict() {  # next Ra_c from a JSON of rows: last + (last - previous)/4, bracket +-0.2%
  python3 -c 'import json,sys; r=[x["rac"] for x in json.load(open(sys.argv[1]))["rows"]]; p=r[-1]+(r[-1]-r[-2])/4; print(f"{p*0.998},{p*1.002}")' "$1"
}
onset() {  # name, coarse resolutions, bracket, finest resolution (optional)
  local name=$1 coarse=$2 ra=$3 finest=${4:-}
  echo "=== onset $name at $coarse"
  /usr/bin/time -f "%e s" $bin/bouss onset cases/$name.json --backend cuda --resolutions $coarse --ra $ra --json \
    > "$out/onset_${name}.json" 2> "$out/onset_${name}.err"; tail -1 "$out/onset_${name}.err"
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); [print(r["n"], round(r["rac"],4), round(r["seconds"],1), "s") for r in d["rows"]]; print("extrapolated", d["extrapolated"])' "$out/onset_${name}.json"
  if [ -n "$finest" ]; then
    echo "=== onset $name at $finest"
    timeout ${FINEST_LIMIT:-400} $bin/bouss onset cases/$name.json --backend cuda --resolutions $finest --ra "$(predict "$out/onset_${name}.json")" \
      --json > "$out/onset_${name}_${finest}.json" 2> "$out/onset_${name}_${finest}.err" && \
      python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); [print(r["n"], round(r["rac"],4), round(r["seconds"],1), "s") for r in d["rows"]]' "$out/onset_${name}_${finest}.json"
  fi
}
nvidia-smi -L
has free_slip && onset onset_free_slip 16,32,64 655,662 128
has no_slip && onset onset_no_slip ${NO_SLIP_RES:-16,32,64} 1670,1680
if has no_slip_128; then
  # 476k steps a run (dt = 1.05e-6): one --rates run per GPU at once, 0.5 diffusive times each
  # (validation/README.md), Ra_c from the line through the two rates.
  echo "=== onset onset_no_slip at 128 (--rates 1707.0, 1707.4)"
  gpus=$(nvidia-smi -L | wc -l); i=0
  for ra in 1707.0 1707.4; do
    CUDA_VISIBLE_DEVICES=$(( i % gpus )) timeout ${FINEST_LIMIT:-560} $bin/bouss onset cases/onset_no_slip.json --backend cuda \
      --resolutions 128 --set time.end=0.5 --rates $ra --json > "$out/onset_no_slip_128_$ra.json" 2> "$out/onset_no_slip_128_$ra.err" &
    i=$((i + 1)); [ "$gpus" -gt 1 ] || wait
  done
  wait
  python3 -c 'import json,sys; p=[json.load(open(f))["rows"][0]["growth_rates"][0] for f in sys.argv[1:]]; (a,s),(b,t)=p; print(p, "Ra_c", a - s*(b-a)/(t-s))' \
    "$out"/onset_no_slip_128_1707.*.json
fi
has cube && onset onset_cube 16,32,64 6600,6700
if has nusselt; then
  echo "=== Nusselt, cube at Ra = 4.4e4"
  mkdir -p "$out/nu"
  /usr/bin/time -f "%e s" $bin/bouss converge cases/nusselt_cube.json --backend cuda --resolutions 16,32,64 \
    --diagnostic nusselt_bottom --output-dir "$out/nu" --json > "$out/nusselt_cube.json" 2> "$out/nusselt_cube.err"
  tail -1 "$out/nusselt_cube.err"
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); [print(r["n"], r["nusselt"], round(r["seconds"],1), "s") for r in d["rows"]]; print("order", d["order"], "extrapolated", d["extrapolated"])' "$out/nusselt_cube.json"
fi
