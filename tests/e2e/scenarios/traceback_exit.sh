#!/usr/bin/env bash
# A job that exits 1 after a Python traceback is never "no problems found":
# the summary names the exception line it printed last (an error the
# knowledge base does not know: still reported, low-to-medium confidence).
# Twin: the same job training to its end, exit 0.
. "$(dirname "$0")/lib/scenario.sh"
# The twin is a healthy job: on its NPU, and the NPU busy.
sim_910b_host '[ascend.device.0]
aicore_util = 85
hbm_used_mb = 20000'

run_nd "$T/out" "$T/err" run --root "$ROOT" "${RUNOPTS[@]}" --json-summary="$T/sum.json" -- "$PY" "$JOB" traceback 0.5
expect_rc 1 "the job's own status"
finding_is "$T/sum.json" exit.failed config error
assert_json "$T/sum.json" "any('ValueError: expected input of shape' in e['text'] and e['file'] == 'output' and e['line'] > 0 for f in d['findings'] for e in f['evidence'])" "the exception line, with its line number"
assert_not_contains "$T/err" "no problems found"
assert_contains "$T/err" "npu-doctor: error: The job failed with exit status 1: ValueError: expected input"

DEVICE=$ROOT/dev/davinci0 run_nd "$T/out2" "$T/err2" run --root "$ROOT" "${RUNOPTS[@]}" --json-summary="$T/sum2.json" \
  -- "$PY" "$JOB" train 1
expect_rc 0 "twin: exit 0"
twin_clean "$T/sum2.json" "$T/err2"
finish
