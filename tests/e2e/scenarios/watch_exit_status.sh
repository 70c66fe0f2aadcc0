#!/usr/bin/env bash
# `watch` on a job it did not start: the job exits 5 while its parent is
# still busy, so the kernel still holds the status in the zombie. watch says
# the job ended, returns 5 and names the failure. Twin: the job exits 0.
# Last, a parent that reaps at once: the status comes from the kernel's exit
# notice.
. "$(dirname "$0")/lib/scenario.sh"
sim_910b_host '[ascend.device.0]
aicore_util = 85
hbm_used_mb = 20000'

# The parent collects its child only 2 minutes after it started (a launcher busy elsewhere),
# so the kernel keeps the exit status in the zombie meanwhile.
start_job_late_reaper() { # MODE [SECONDS]
  rm -f "$T/ready"
  DEVICE=$ROOT/dev/davinci0 READY=$T/ready "$PY" -c '
import os, sys, time
pid = os.fork()
if pid == 0:
    os.execv(sys.argv[1], sys.argv[1:])
time.sleep(120)
os.waitpid(pid, 0)
' "$PY" "$JOB" "$1" "${2:-2}" &
  PARENT=$!
  ND_BG_PIDS=$PARENT
  wait_file "$T/ready" || fail "the job never started"
  CHILD=$(cat "$T/ready")
}

start_job_late_reaper exit5
run_nd "$T/out" "$T/err" watch --pid "$CHILD" --root "$ROOT" "${RUNOPTS[@]}" --json-summary="$T/sum.json" \
  --metrics-file "$T/job.prom"
expect_rc 5 "watch returns the job's status"
assert_contains "$T/err" "npu-doctor: the job (pid $CHILD) ended: exit status 5" "says the job ended"
assert_json "$T/sum.json" "d['job']['exit_status'] == 5"
finding_is "$T/sum.json" exit.failed config error
if grep -Eq '^npu_doctor_job_running\{.*\} 0$' "$T/job.prom"; then pass "metrics: running 0 once the job ended"
else fail "metrics after the end:"; grep job_running "$T/job.prom"; fi
kill "$PARENT" 2>/dev/null; wait "$PARENT" 2>/dev/null

start_job_late_reaper train 6
# --for ends the watch first: the job goes on, and the metrics say it still runs.
run_nd "$T/out3" "$T/err3" watch --pid "$CHILD" --root "$ROOT" "${RUNOPTS[@]}" --for 1 --metrics-file "$T/job3.prom"
if grep -Eq '^npu_doctor_job_running\{.*\} 1$' "$T/job3.prom"; then pass "metrics: --for ran out, the job still runs"
else fail "metrics after --for:"; grep job_running "$T/job3.prom"; fi
run_nd "$T/out2" "$T/err2" watch --pid "$CHILD" --root "$ROOT" "${RUNOPTS[@]}" --json-summary="$T/sum2.json"
expect_rc 0 "twin: the job's status 0"
assert_contains "$T/err2" "npu-doctor: the job (pid $CHILD) ended: exit status 0"
twin_clean "$T/sum2.json" "$T/err2"
kill "$PARENT" 2>/dev/null; wait "$PARENT" 2>/dev/null
ND_BG_PIDS=

# A parent that reaps at once (this shell, like torchrun): the zombie is gone
# before watch looks, and the kernel's exit notice (taskstats) gives the
# status. Without the right to listen (not root, or inside a container) watch
# says why the status is unknown.
rm -f "$T/ready"
DEVICE=$ROOT/dev/davinci0 READY=$T/ready "$PY" "$JOB" exit5 2 &
JOBPID=$!
ND_BG_PIDS=$JOBPID
wait_file "$T/ready" || fail "the job never started"
run_nd "$T/out4" "$T/err4" watch --pid "$JOBPID" --root "$ROOT" "${RUNOPTS[@]}" --json-summary="$T/sum4.json"
wait "$JOBPID" 2>/dev/null
if grep -q "exit notices need root outside a container" "$T/err4"; then
  pass "no exit notices here: watch says why the status is unknown"
else
  expect_rc 5 "reaped at once: watch still returns the job's status"
  assert_contains "$T/err4" "npu-doctor: the job (pid $JOBPID) ended: exit status 5" "says the job ended, with its status"
  assert_json "$T/sum4.json" "d['job']['exit_status'] == 5"
  finding_is "$T/sum4.json" exit.failed config error
fi
ND_BG_PIDS=
finish
