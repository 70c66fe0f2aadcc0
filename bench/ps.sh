#!/usr/bin/env bash
# Benchmark of `npu-doctor ps` against the tools users run today, measured in
# the same run on the same 300 extra idle processes:
#   - `ps aux`       target: npu-doctor ps --json at most 3x its median
#   - `lsof -n`      target: npu-doctor ps --json at least 10x faster
# plus the CPU cost of one footprint sample of a 64-process tree (run/watch
# sample this way; target under 2 ms CPU per sample), from bench/footprint_cost.c.
#
# Two rounds: (A) the 300 idle processes are `sleep`s;
# (B) the same plus an ML-host-like set: one PyTorch process (Debian's
# /usr/bin/python3) forked into 63 idle workers, as DataLoader workers are.
# lsof's cost grows with every open and mapped file, ours mostly does not,
# so the lsof ratio depends on how much the host's processes map.
#
# `ps --json` is timed with --interval 0 (CPU as a lifetime average, the same
# figure ps aux prints): with the default 1 s window its wall time is the
# window itself, so for that one the CPU time spent is compared instead.
#
# Usage: bench/ps.sh [BUILD_DIR]   (default: build; needs hyperfine, lsof, cc)
set -u
cd "$(dirname "$0")/.." || exit 70
BUILD=${1:-build}
ND=${ND_BIN:-$BUILD/npu-doctor}
[ -x "$ND" ] || { echo "bench/ps.sh: no $ND (build first)" >&2; exit 66; }
for tool in hyperfine lsof ps python3 cc; do
  command -v "$tool" >/dev/null || { echo "bench/ps.sh: $tool is missing (apt-get install $tool)" >&2; exit 66; }
done
W=$(mktemp -d "${TMPDIR:-/tmp}/nd-bench.XXXXXX")
PIDS=()
cleanup() {
  [ "${#PIDS[@]}" -gt 0 ] && kill "${PIDS[@]}" 2>/dev/null
  wait 2>/dev/null
  rm -rf "$W"
}
trap cleanup EXIT

for _ in $(seq 300); do
  sleep 3600 &
  PIDS+=($!)
done
nproc_host() { local p=(/proc/[0-9]*); echo "${#p[@]}"; }
echo "started 300 idle processes; $(nproc_host) processes on the host, $(nproc) CPUs"

# median wall seconds, and mean user+sys seconds, of one hyperfine export
stats() {
  python3 - "$1" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"][0]
print(r["median"], r["user"] + r["system"])
PY
}

bench() { # NAME RUNS COMMAND...
  local name=$1 runs=$2
  shift 2
  hyperfine -N --style none --warmup 2 --runs "$runs" --export-json "$W/$name.json" --output=null "$*" >/dev/null 2>"$W/$name.err" ||
    { echo "bench/ps.sh: '$*' failed:" >&2; cat "$W/$name.err" >&2; exit 70; }
  stats "$W/$name.json"
}

round() { # LABEL
  local nd_med nd_cpu nd1_med nd1_cpu ps_med ps_cpu lsof_med lsof_cpu
  read -r nd_med nd_cpu < <(bench nd 30 "$ND" ps --json --interval 0)
  read -r nd1_med nd1_cpu < <(bench nd1 5 "$ND" ps --json)
  read -r ps_med ps_cpu < <(bench ps 30 ps aux)
  read -r lsof_med lsof_cpu < <(bench lsof 5 lsof -n)
  python3 - "$1" "$nd_med" "$nd_cpu" "$nd1_med" "$nd1_cpu" "$ps_med" "$ps_cpu" "$lsof_med" "$lsof_cpu" <<'PY'
import sys
label = sys.argv[1]
nd, ndc, nd1, nd1c, ps, psc, lsof, lsofc = map(float, sys.argv[2:])
ms = lambda s: "%8.1f ms" % (s * 1e3)
print("%s: median wall time (mean CPU time user+sys):" % label)
print("  npu-doctor ps --json --interval 0  %s (%s)" % (ms(nd), ms(ndc)))
print("  npu-doctor ps --json (1 s window)  %s (%s)" % (ms(nd1), ms(nd1c)))
print("  ps aux                             %s (%s)" % (ms(ps), ms(psc)))
print("  lsof -n                            %s (%s)" % (ms(lsof), ms(lsofc)))
r1 = nd / ps
r2 = lsof / nd
r3 = nd1c / psc if psc > 0 else float("inf")
print("  ratio ps --json / ps aux:           %5.2fx  (target <= 3x)   %s" % (r1, "ok" if r1 <= 3 else "MISSED"))
print("  ratio lsof -n / ps --json:          %5.1fx  (target >= 10x)  %s" % (r2, "ok" if r2 >= 10 else "MISSED"))
print("  CPU ratio ps --json (1 s) / ps aux: %5.2fx" % r3)
print("  CPU ratio lsof -n / ps --json:      %5.1fx  (CPU time is steadier than wall time on a shared machine)" % (lsofc / ndc if ndc > 0 else float("inf")))
PY
}

# No vendor library answers on a bench machine, usually; either way the
# same library state holds for every command measured.
round "(A) 300 idle sleeps"

if /usr/bin/python3 -c 'import torch' 2>/dev/null; then
  /usr/bin/python3 -c '
import os, signal, sys, torch
signal.alarm(3600)
for _ in range(63):
    if os.fork() == 0:
        signal.pause()
        os._exit(0)
open(sys.argv[1], "w").write("ok")
signal.pause()
' "$W/ml-ready" &
  PIDS+=($!)
  for _ in $(seq 1200); do [ -s "$W/ml-ready" ] && break; sleep 0.1; done
  sleep 1
  round "(B) + 1 torch process with 63 forked idle workers"
  pkill -KILL -P "${PIDS[-1]}" 2>/dev/null
else
  echo "(B) skipped: /usr/bin/python3 cannot import torch"
fi

# Footprint cost of a 64-process tree (one of them a real PyTorch process when available).
CFLAGS_ND=$(pkg-config --cflags jansson libhs inih 2>/dev/null)
LIBS_ND=$(pkg-config --libs jansson libhs inih 2>/dev/null)
# shellcheck disable=SC2086 # word splitting of the flag lists is intended
cc -std=c11 -O2 -D_GNU_SOURCE -Isrc $CFLAGS_ND bench/footprint_cost.c "$BUILD/libnd.a" $LIBS_ND -lz -ldl -lm \
  -o "$W/footprint_cost" 2>"$W/cc.err" || { echo "bench/ps.sh: cannot build footprint_cost:" >&2; cat "$W/cc.err" >&2; exit 70; }
PY=-
/usr/bin/python3 -c 'import torch' 2>/dev/null && PY=/usr/bin/python3
"$W/footprint_cost" "$PY" 300
