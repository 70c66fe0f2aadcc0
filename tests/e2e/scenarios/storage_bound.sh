#!/usr/bin/env bash
# Starved by storage on a simulated 910B host: the job holds npu:0 at 3%
# while its DataLoader-like worker sleeps reading a slow pipe (16 KiB every
# 0.25 s) and the CPU idles. input-bound, storage form, with the read
# throughput and the waiting worker. Twin: the same job with its NPU at 90%.
. "$(dirname "$0")/lib/scenario.sh"

state() {
  sim_910b_host "[ascend.device.0]
aicore_util = $1
hbm_used_mb = 20000"
}
state 3
DEVICE=$ROOT/dev/davinci0 run_nd "$T/out" "$T/err" run --root "$ROOT" "${RUNOPTS[@]}" --json-summary="$T/sum.json" \
  -- "$PY" "$JOB" storage 8
expect_rc 0 "the job's own status"
assert_contains "$T/out" "worker read" "the worker read its data"
finding_is "$T/sum.json" idle.storage-bound input-bound warning
F="[f for f in d['findings'] if f['id'] == 'idle.storage-bound'][0]"
assert_json "$T/sum.json" "any(e['text'].startswith('read throughput: ') for e in ${F}['evidence'])" "the read throughput"
assert_json "$T/sum.json" "any('pipe_read' in e['text'] for e in ${F}['evidence'])" "the worker waiting in a read"
assert_json "$T/sum.json" "any('local NVMe' in x for x in ${F}['fix'])" "fix: faster or local storage"
assert_json "$T/sum.json" "not any(f['id'] in ('idle.input-bound', 'hang.no-progress') for f in d['findings'])" "not the CPU-bound form, not a hang"
assert_contains "$T/err" "npu-doctor: warning: The device waits for data from storage" "live alert"

state 90
DEVICE=$ROOT/dev/davinci0 run_nd "$T/out2" "$T/err2" run --root "$ROOT" "${RUNOPTS[@]}" \
  --json-summary="$T/sum2.json" -- "$PY" "$JOB" storage 8
expect_rc 0 "twin: the job's own status"
twin_clean "$T/sum2.json" "$T/err2"
finish
