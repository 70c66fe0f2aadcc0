#!/usr/bin/env bash
# `npu-doctor run` gives the findings explain gives for the same output
# (issue #9 §4), when a job writes it a line at a time:
#  - a message whose pattern crosses a line end ("...used to compile" then
#    "PyTorch (12.1)" on the next line) matches although its two lines come
#    in different reads: run scans each read after the stream's last lines,
#    and withdraws what the message's first lines gave alone;
#  - a context rule's line held until what it requires comes, once it
#    counts, hides the generic reading of that line, as explain keeps one
#    finding per line: run's summary no longer lists the generic one.
. "$(dirname "$0")/lib/assert.sh"
export NPU_DOCTOR_DCMI_LIB=$T/none NPU_DOCTOR_NVML_LIB=$T/none

# slow FILE: a job that writes FILE to stderr a line at a time, pausing
# longer than run's settle time between lines, then fails.
SLOW='import sys, time
for l in open(sys.argv[1], "rb").read().splitlines(True):
    sys.stderr.buffer.write(l); sys.stderr.flush(); time.sleep(0.3)
sys.exit(1)'

ids() { # ids JSONFILE: the finding ids, in order
  python3 -c 'import json, sys; print(" ".join(f["id"] for f in json.load(open(sys.argv[1]))["findings"]))' "$1"
}

# --- a pattern across two lines, each line its own write ---
printf '%s\n' 'RuntimeError:' \
  'The detected CUDA version (10.1) mismatches the version that was used to compile' \
  'PyTorch (12.1). Please make sure to use the same CUDA versions.' >"$T/cross.log"
# and the indented form pip prints under "error: subprocess-exited-with-error"
sed 's/^/      /' "$T/cross.log" >"$T/cross-indented.log"
for c in cross cross-indented; do
  "$ND" explain --json "$T/$c.log" >"$T/$c.ej" 2>/dev/null
  assert_json "$T/$c.ej" "d['findings'][0]['id'] == 'cuda.version-mismatch.extension'" "$c: explain reads the CUDA mismatch"
  run_nd "$T/$c.out" "$T/$c.err" run --quiet --json-summary="$T/$c.json" -- python3 -u -c "$SLOW" "$T/$c.log"
  expect_rc 1 "$c: the job's own status"
  assert_json "$T/$c.json" "d['findings'][0]['id'] == 'cuda.version-mismatch.extension'" \
    "$c: run, a line per write, reads the CUDA mismatch too"
  assert_json "$T/$c.json" "[e['line'] for f in d['findings'] if f['id'] == 'cuda.version-mismatch.extension' for e in f['evidence'] if e.get('line')][:1] == [3]" \
    "$c: on the line the message ends on, as explain"
  # Its first line alone reads as a generic version clash; once the message
  # is whole that reading is withdrawn, as explain keeps one per message.
  assert_json "$T/$c.ej" "not any(f['id'] == 'generic.version' for f in d['findings'])" "$c: explain, no generic reading"
  assert_json "$T/$c.json" "not any(f['id'] == 'generic.version' for f in d['findings'])" \
    "$c: run withdraws the generic reading of the message's first line"
done
# The two lines on different streams are not one message.
run_nd "$T/split.out" "$T/split.err" run --quiet --json-summary="$T/split.json" -- sh -c '
  echo "The detected CUDA version (10.1) mismatches the version that was used to compile" >&2; sleep 0.3
  echo "PyTorch (12.1). Please make sure to use the same CUDA versions."; exit 1'
assert_json "$T/split.json" "not any(f['id'] == 'cuda.version-mismatch.extension' for f in d['findings'])" \
  "a line on stdout does not continue one on stderr"

# --- a held line hides the generic reading of its own line ---
mkdir -p "$T/rules"
cat >"$T/rules/parity.rules" <<'RULES'
[e2e.zq-generic]
category = device-oom
generic  = true
pattern  = ZQXV failure
title    = generic reading
fix      = f
example  = ZQXV failure

[e2e.zq-specific]
category = device-oom
pattern  = ZQXV failure in the pool
requires = re:ZQXV-MARKER
title    = specific reading
fix      = f
example  = ZQXV failure in the pool
RULES
printf '%s\n' 'step 1' 'RuntimeError: ZQXV failure in the pool' 'step 2' 'note: ZQXV-MARKER seen' >"$T/held.log"
"$ND" explain --rules "$T/rules" --json "$T/held.log" >"$T/held.ej" 2>/dev/null
run_nd "$T/held.out" "$T/held.err" run --quiet --rules "$T/rules" --json-summary="$T/held.json" -- \
  python3 -u -c "$SLOW" "$T/held.log"
expect_rc 1 "held: the job's own status"
assert_json "$T/held.ej" "[f['id'] for f in d['findings'] if f['id'].startswith('e2e.')] == ['e2e.zq-specific']" \
  "held: explain gives the specific reading only"
assert_json "$T/held.json" "[f['id'] for f in d['findings'] if f['id'].startswith('e2e.')] == ['e2e.zq-specific']" \
  "held: run's summary withdraws the generic reading once the held line counts"
# The generic line of its own stays.
printf '%s\n' 'RuntimeError: ZQXV failure' 'RuntimeError: ZQXV failure in the pool' 'note: ZQXV-MARKER seen' >"$T/held2.log"
run_nd "$T/held2.out" "$T/held2.err" run --quiet --rules "$T/rules" --json-summary="$T/held2.json" -- \
  python3 -u -c "$SLOW" "$T/held2.log"
"$ND" explain --rules "$T/rules" --json "$T/held2.log" >"$T/held2.ej" 2>/dev/null
assert_json "$T/held2.json" "sorted(f['id'] for f in d['findings'] if f['id'].startswith('e2e.')) == ['e2e.zq-generic', 'e2e.zq-specific']" \
  "held2: a generic line of its own stays beside the held one"
assert_json "$T/held2.ej" "sorted(f['id'] for f in d['findings'] if f['id'].startswith('e2e.')) == ['e2e.zq-generic', 'e2e.zq-specific']" \
  "held2: as in explain"
# --- the same with built-in rules: a CUDA library missing on an Ascend host
# (the torch_npu line comes after it) is the CUDA build of a package there,
# not a CUDA toolkit off the library path ---
printf '%s\n' 'OSError: libcudart.so.12: cannot open shared object file: No such file or directory' \
  'step 0' '>>> import torch_npu' >"$T/npu.log"
"$ND" explain --json "$T/npu.log" >"$T/npu.ej" 2>/dev/null
run_nd "$T/npu.out" "$T/npu.err" run --quiet --json-summary="$T/npu.json" -- python3 -u -c "$SLOW" "$T/npu.log"
for j in npu.ej npu.json; do
  assert_json "$T/$j" "d['findings'][0]['id'] == 'version.cuda-library-on-npu-host'" "$j: the NPU-host reading first"
  assert_json "$T/$j" "not any(f['id'] == 'env.cuda-runtime-library-missing' for f in d['findings'])" \
    "$j: not the CUDA-host reading of the same line"
done
finish
