#!/usr/bin/env bash
# A job that prints the NPU out-of-memory error and exits 1: a device-oom
# error from the knowledge base, and the exit verdict names that line.
# Twin: a job on its NPU that ends well.
. "$(dirname "$0")/lib/scenario.sh"
sim_910b_host '[ascend.device.0]
aicore_util = 80
hbm_used_mb = 60000'

DEVICE=$ROOT/dev/davinci0 run_nd "$T/out" "$T/err" run --root "$ROOT" "${RUNOPTS[@]}" --json-summary="$T/sum.json" \
  -- "$PY" "$JOB" oom-text 0.5
expect_rc 1 "the job's own status"
assert_json "$T/sum.json" "any(f['category'] == 'device-oom' and f['severity'] == 'error' for f in d['findings'])" "a device-oom error"
finding_is "$T/sum.json" exit.failed config error
assert_json "$T/sum.json" "any('NPU out of memory' in e['text'] for f in d['findings'] if f['id'] == 'exit.failed' for e in f['evidence'])" "the exit verdict names the OOM line"

DEVICE=$ROOT/dev/davinci0 run_nd "$T/out2" "$T/err2" run --root "$ROOT" "${RUNOPTS[@]}" --json-summary="$T/sum2.json" \
  -- "$PY" "$JOB" train 1
expect_rc 0 "twin: exit 0"
twin_clean "$T/sum2.json" "$T/err2"
finish
