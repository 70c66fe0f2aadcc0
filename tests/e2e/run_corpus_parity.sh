#!/usr/bin/env bash
# Parity on real logs: `npu-doctor run` explains a job's output as it arrives
# and should end with the same top finding (category and rule id) as
# `explain --json` on the same log. For every dev case of tests/corpus
# (labels*.tsv, split dev) a job writes the log to stderr (a) in one go, all
# cases, and (b) line by line with short pauses, a sample, and exits 1; the
# simulated device libraries are off, so only the log speaks.
#
# Exceptions (ALLOW below) are cases where explain knows something the live
# path cannot: each names its reason. The check half is only counted, never
# shown, and only when ND_PARITY_CHECK=1.
. "$(dirname "$0")/lib/assert.sh"

CORPUS=${ND_SRC:?ND_SRC must name the source tree}/tests/corpus
export NPU_DOCTOR_DCMI_LIB=$T/none NPU_DOCTOR_NVML_LIB=$T/none
# Every SAMPLE-th dev case is also streamed line by line.
SAMPLE=${ND_PARITY_SAMPLE:-10}

# id: reason. Keep this short; every entry is a documented limit of the live
# path, or a known difference not yet fixed (KNOWN), each to be removed when
# fixed so that the test then guards it.
declare -A ALLOW=(
  # (none at present: 792, a pattern across two physical lines, matches live
  # too since run scans each block after its stream's last lines)
)

top() { # top JSONFILE: "category id" of the first finding, or none
  python3 -c '
import json, sys
try:
    f = json.load(open(sys.argv[1])).get("findings") or []
except Exception:
    print("bad-json"); sys.exit(0)
print(f[0]["category"] + " " + f[0]["id"] if f else "none")' "$1"
}

# stream FILE: writes FILE to stderr line by line, pausing after each line
# (at most ~1 s in all), then exits 1 like a failed job.
STREAM='import sys, time
lines = open(sys.argv[1], "rb").read().splitlines(True)
pause = min(0.01, 1.0 / max(len(lines), 1))
for l in lines:
    sys.stderr.buffer.write(l); sys.stderr.flush(); time.sleep(pause)
sys.exit(1)'

shopt -s nullglob
ids_dev=() ids_check=()
for lf in "$CORPUS"/labels*.tsv; do
  while IFS=$'\t' read -r id _c _a _s _cause _fix split _rest; do
    [[ "$id" =~ ^[0-9]+$ ]] && [ -f "$CORPUS/$id.txt" ] || continue
    if [ "${split:-dev}" = check ]; then ids_check+=("$id"); else ids_dev+=("$id"); fi
  done <"$lf"
done

# parity ID MODE: compares run (MODE oneshot or lines) with explain and
# writes "agree" or what each said to $T/ID.MODE.res.
parity() {
  local id=$1 mode=$2 f="$CORPUS/$1.txt" ex rn
  "$ND" explain --json "$f" >"$T/$id.$mode.ej" 2>/dev/null
  ex=$(top "$T/$id.$mode.ej")
  if [ "$mode" = oneshot ]; then
    "$ND" run --quiet --json-summary="$T/$id.$mode.json" -- sh -c 'cat "$1" >&2; exit 1' sh "$f" >/dev/null 2>&1
  else
    "$ND" run --quiet --json-summary="$T/$id.$mode.json" -- python3 -u -c "$STREAM" "$f" >/dev/null 2>&1
  fi
  rn=$(top "$T/$id.$mode.json")
  if [ "$ex" = "$rn" ]; then echo agree; else echo "explain [$ex] run [$rn]"; fi >"$T/$id.$mode.res"
}

# The comparisons are independent: as many at once as there are CPUs (the
# sanitizer build is several times slower; one at a time it took most of
# its time limit).
par=$(nproc 2>/dev/null || echo 2)
spawn() {
  parity "$@" &
  while [ "$(jobs -rp | wc -l)" -ge "$par" ]; do wait -n || true; done
}

i=0
for id in "${ids_dev[@]}"; do
  spawn "$id" oneshot
  [ $((i % SAMPLE)) -eq 0 ] && spawn "$id" lines
  i=$((i + 1))
done
if [ "${ND_PARITY_CHECK:-0}" = 1 ]; then
  for id in "${ids_check[@]}"; do spawn "$id" oneshot; done
fi
wait

agree_a=0 agree_b=0 n_b=0 allowed=0 i=0
for id in "${ids_dev[@]}"; do
  for mode in oneshot lines; do
    if [ $mode = lines ] && [ $((i % SAMPLE)) -ne 0 ]; then continue; fi
    got=$(cat "$T/$id.$mode.res" 2>/dev/null || echo "no result")
    [ $mode = lines ] && n_b=$((n_b + 1))
    if [ "$got" = agree ]; then
      [ $mode = oneshot ] && agree_a=$((agree_a + 1)) || agree_b=$((agree_b + 1))
    elif [[ "$got" =~ ^explain\ \[none\]\ run\ \[[a-z-]+\ exit\.failed\]$ ]]; then
      # run knows the job exited 1; a log with no line any rule or step
      # reads gives explain nothing, run the exit: a documented limit.
      allowed=$((allowed + 1)); echo "allowed $id ($mode): run has the exit status explain cannot see"
    elif [ -n "${ALLOW[$id]:-}" ]; then
      allowed=$((allowed + 1)); echo "allowed $id ($mode): ${ALLOW[$id]}: $got"
    else
      fail "$id ($mode): $got"
    fi
  done
  i=$((i + 1))
done
echo "parity dev oneshot: $agree_a/${#ids_dev[@]} agree; lines: $agree_b/$n_b agree; allowed exceptions: $allowed"

if [ "${ND_PARITY_CHECK:-0}" = 1 ]; then
  # Counted only: no id, label or finding of the check half is printed.
  dis=0
  for id in "${ids_check[@]}"; do
    [ "$(cat "$T/$id.oneshot.res" 2>/dev/null)" = agree ] || dis=$((dis + 1))
  done
  echo "parity check oneshot: $dis disagreements of ${#ids_check[@]} (only counted)"
fi
[ "${#ids_dev[@]}" -ge 100 ] && pass "${#ids_dev[@]} dev cases compared" || fail "only ${#ids_dev[@]} dev cases"
finish
