#!/usr/bin/env bash
# `npu-doctor run` loses no diagnosis under an output flood: a job prints
# millions of lines as fast as it can, one root-cause line at the start, in
# the middle and at the end, and exits 1. Every line is matched (live or
# late, all before the summary), the repeat counts are exact, and the output
# passes through byte for byte.
. "$(dirname "$0")/lib/assert.sh"

JOB=${ND_HELPERS:?}/flood_job

flood_case() { # flood_case NAME LINES EVERY
  local name=$1 n=$2 every=$3
  "$JOB" "$n" "$every" >"$T/$name.direct" 2>"$T/$name.direct.err"
  local warnings
  warnings=$(sed -n 's/^flood_job: [0-9]* lines, \([0-9]*\) warnings$/\1/p' "$T/$name.direct.err")
  run_nd "$T/$name.out" "$T/$name.err" run --no-devices --json-summary="$T/$name.json" -- "$JOB" "$n" "$every"
  expect_rc 1 "$name: the job's own status"
  if cmp -s "$T/$name.direct" "$T/$name.out"; then pass "$name: stdout passed through byte for byte"
  else fail "$name: stdout differs from the job's own ($(wc -c <"$T/$name.out") vs $(wc -c <"$T/$name.direct") bytes)"; fi
  local S="d['facts']['job']"
  assert_json "$T/$name.json" "${S}['output_lines'] == $n + 1" "$name: every line counted"
  assert_json "$T/$name.json" "${S}['lines_not_matched'] == 0" "$name: no line left unmatched"
  # The three root causes, each with the line it was printed on.
  local c line
  for c in "no-device:1" "device-oom:$((n / 2 + 1))" "host-oom:$n"; do
    line=${c#*:}
    c=${c%%:*}
    assert_json "$T/$name.json" \
      "any(f['category'] == '$c' and any(e.get('line') == $line and e.get('file') == 'stdout' for e in f['evidence']) for f in d['findings'])" \
      "$name: the $c line (stdout:$line) is found"
  done
  assert_json "$T/$name.json" \
    "[f.get('count', 1) for f in d['findings'] if any('double dtype' in e['text'] for e in f['evidence'])] == [$warnings]" \
    "$name: the warning is counted exactly ($warnings times)"
  assert_contains "$T/$name.err" "NPU out of memory" "$name: the OOM is reported on the terminal"
  assert_not_contains "$T/$name.err" "no problems found" "$name: not called healthy"
}

# torch_npu's dtype warning on every line, 2M copies (as real floods go).
flood_case same 2000000 1
# A warning on every fifth line, distinct step lines between.
flood_case mixed 1500000 5
finish
