#!/usr/bin/env bash
# A job whose `import torch_npu` fails (not installed here): exit 1, and the
# summary names the import error. Twin: the job without that import.
. "$(dirname "$0")/lib/scenario.sh"
# The twin is a healthy job: on its NPU, and the NPU busy.
sim_910b_host '[ascend.device.0]
aicore_util = 85
hbm_used_mb = 20000'

run_nd "$T/out" "$T/err" run --root "$ROOT" "${RUNOPTS[@]}" --json-summary="$T/sum.json" -- "$PY" "$JOB" import
expect_rc 1 "the job's own status"
assert_json "$T/sum.json" "any(f['severity'] == 'error' for f in d['findings'])" "an error"
finding_is "$T/sum.json" exit.failed config error
assert_json "$T/sum.json" "any(\"No module named 'torch_npu'\" in e['text'] for f in d['findings'] if f['id'] == 'exit.failed' for e in f['evidence'])" "names the import error"
assert_not_contains "$T/err" "no problems found"

DEVICE=$ROOT/dev/davinci0 run_nd "$T/out2" "$T/err2" run --root "$ROOT" "${RUNOPTS[@]}" --json-summary="$T/sum2.json" \
  -- "$PY" "$JOB" train 1
expect_rc 0 "twin: exit 0"
twin_clean "$T/sum2.json" "$T/err2"
finish
