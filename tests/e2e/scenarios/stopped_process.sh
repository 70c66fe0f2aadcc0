#!/usr/bin/env bash
# A stopped job (SIGSTOP, as SIGTTIN/SIGTSTP leave it): reported as stopped
# with why, never as a collective hang; continued, it ends well.
# Twin: the same job, not stopped.
. "$(dirname "$0")/lib/scenario.sh"
sim_910b_host '[ascend.device.0]
aicore_util = 85
hbm_used_mb = 20000'

DEVICE=$ROOT/dev/davinci0 READY=$T/ready run_nd "$T/out" "$T/err" run --root "$ROOT" "${RUNOPTS[@]}" --hang-after 3 \
  --json-summary="$T/sum.json" -- "$PY" "$JOB" stop &
RUN=$!
wait_file "$T/ready" && JOBPID=$(cat "$T/ready")
if wait_text "$T/err" "npu-doctor: warning: The job is stopped by a signal"; then pass "live alert: stopped"; else fail "no stopped alert"; fi
kill -CONT "${JOBPID:-0}"
wait "$RUN"
rc=$?
expect_rc 0 "continued, the job ends well"
finding_is "$T/sum.json" hang.stopped hang warning
assert_json "$T/sum.json" "any('SIGTTIN' in f['cause'] for f in d['findings'] if f['id'] == 'hang.stopped')" "says why a job gets stopped"
assert_json "$T/sum.json" "not any(f['id'] == 'hang.no-progress' for f in d['findings'])" "not called a hang"
assert_contains "$T/out" "continued"

DEVICE=$ROOT/dev/davinci0 run_nd "$T/out2" "$T/err2" run --root "$ROOT" "${RUNOPTS[@]}" --hang-after 3 \
  --json-summary="$T/sum2.json" -- "$PY" "$JOB" train 4
expect_rc 0 "twin: exit 0"
twin_clean "$T/sum2.json" "$T/err2"
finish
