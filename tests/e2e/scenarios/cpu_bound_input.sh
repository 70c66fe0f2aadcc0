#!/usr/bin/env bash
# Input-bound, CPU form: the job holds npu:0 at 3% while two worker
# processes compute on the CPU (decoding, augmenting). input-bound with the
# workers as evidence and a num_workers advice from the free cores.
# Twin: the same job with its NPU at 90%.
. "$(dirname "$0")/lib/scenario.sh"
state() {
  sim_910b_host "[ascend.device.0]
aicore_util = $1
hbm_used_mb = 20000"
}
state 3
DEVICE=$ROOT/dev/davinci0 run_nd "$T/out" "$T/err" run --root "$ROOT" "${RUNOPTS[@]}" --json-summary="$T/sum.json" \
  -- "$PY" "$JOB" cpu-input 6
expect_rc 0 "the job's own status"
finding_is "$T/sum.json" idle.input-bound input-bound warning
F="[f for f in d['findings'] if f['id'] == 'idle.input-bound'][0]"
assert_json "$T/sum.json" "any('worker processes' in e['text'] for e in ${F}['evidence'])" "the workers as evidence"
assert_json "$T/sum.json" "any('num_workers' in x for x in ${F}['fix'])" "num_workers advice"
assert_json "$T/sum.json" "not any(f['category'] == 'cpu-fallback' for f in d['findings'])" "no cpu-fallback: the workers feed a device holder"
state 90
DEVICE=$ROOT/dev/davinci0 run_nd "$T/out2" "$T/err2" run --root "$ROOT" "${RUNOPTS[@]}" --json-summary="$T/sum2.json" \
  -- "$PY" "$JOB" cpu-input 6
expect_rc 0 "twin: exit 0"
twin_clean "$T/sum2.json" "$T/err2"
finish
