#!/usr/bin/env bash
# A job killed by SIGKILL from outside the cgroup's OOM counter: 137, a
# warning that says who sends SIGKILL and where to look. Twin: the job ends well.
. "$(dirname "$0")/lib/scenario.sh"
# The twin is a healthy job: on its NPU, and the NPU busy.
sim_910b_host '[ascend.device.0]
aicore_util = 85
hbm_used_mb = 20000'

DEVICE=$ROOT/dev/davinci0 run_nd "$T/out" "$T/err" run --root "$ROOT" "${RUNOPTS[@]}" --json-summary="$T/sum.json" \
  -- "$PY" "$JOB" sigkill 0.5
expect_rc 137 "128 + SIGKILL"
assert_json "$T/sum.json" "any(f['id'] in ('exit.killed', 'exit.oom-killed') for f in d['findings'])" "the SIGKILL is explained"
assert_json "$T/sum.json" "d['job']['exit_status'] == 137"
assert_not_contains "$T/err" "no problems found"

DEVICE=$ROOT/dev/davinci0 run_nd "$T/out2" "$T/err2" run --root "$ROOT" "${RUNOPTS[@]}" --json-summary="$T/sum2.json" \
  -- "$PY" "$JOB" train 1
expect_rc 0 "twin: exit 0"
twin_clean "$T/sum2.json" "$T/err2"
finish
