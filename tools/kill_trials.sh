#!/usr/bin/env bash
# Random kills of a run that writes every step, and what they leave (docs/output.md, "Kills"):
#   tools/kill_trials.sh TRIALS [BOUSS]      (default: build/bouss; results in /tmp/bouss_kills)
# Each trial runs the audit's case of issue 26 (16x16x8 convection, a snapshot of five
# fields, the profiles and a diagnostics record every step) on the CPU, kills it with SIGKILL
# 0.1-0.7 s in, reads every record of every variable of its partial file with netCDF4-python
# (tools/kill_trials_check.py: ok, last-incomplete, DAMAGED or NOOPEN), and runs `bouss
# recover` on it, checking the recovered file the same way. The last line counts each class.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
trials=${1:?usage: tools/kill_trials.sh TRIALS [BOUSS]}
bouss=${2:-$root/build/bouss}
out=${KILL_TRIALS_DIR:-/tmp/bouss_kills}
rm -rf "$out"; mkdir -p "$out"
/usr/bin/python3 - "$root/cases/rayleigh_benard.json" "$out/case.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["grid"]["n"] = [16, 16, 8]
c["time"] = {"end": 1e9, "cfl": 0.5}
c["output"] = [{"file": "out/rb.nc", "interval_steps": 1, "fields": ["T", "u", "v", "w", "p"], "diagnostics_interval_steps": 1},
               {"file": "out/rb_profiles.nc", "interval_steps": 1, "profiles": True}]
json.dump(c, open(sys.argv[2], "w"), indent=1)
PY
check() { HDF5_USE_FILE_LOCKING=FALSE /usr/bin/python3 "$root/tools/kill_trials_check.py" "$1" 2>&1 | tail -1 | cut -d' ' -f1; }
declare -A seen=()
for i in $(seq 1 "$trials"); do
  d=$out/t$i; mkdir -p "$d"
  (cd "$d" && exec "$bouss" run ../case.json --backend cpu --progress 0) >/dev/null 2>&1 &
  pid=$!
  sleep "$(/usr/bin/python3 -c 'import random; print(0.1 + random.random() * 0.6)')"
  kill -9 $pid; wait $pid 2>/dev/null
  partial=$(ls "$d"/out/rb.nc.*.partial 2>/dev/null | head -1)
  if [ -z "$partial" ]; then seen[nofile]=$(( ${seen[nofile]:-0} + 1 )); rm -rf "$d"; continue; fi
  before=$(check "$partial")
  "$bouss" recover "$partial" --output "$d/recovered.nc" >"$d/recover.log" 2>&1
  after=$(check "$d/recovered.nc")
  key="$before->recovered:$after"
  seen[$key]=$(( ${seen[$key]:-0} + 1 ))
  echo "trial $i: partial $before, recovered $after"
  case "$before$after" in ok*ok|last-incomplete*ok) rm -rf "$d";; esac
done
printf 'tally:'; for k in "${!seen[@]}"; do printf ' %s=%s' "$k" "${seen[$k]}"; done; echo
