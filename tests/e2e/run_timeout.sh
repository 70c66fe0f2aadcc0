#!/usr/bin/env bash
# `npu-doctor run --timeout DURATION`: a job still running at the limit is
# stopped with its whole process tree (a child that ignores SIGTERM, a
# daemon that left with setsid), the report says the timeout stopped it and
# run exits 124. A job that ends in time keeps its own status. Bad durations
# are usage errors. Outcomes only: no assertion on how long anything took.
. "$(dirname "$0")/lib/assert.sh"

export NPU_DOCTOR_DCMI_LIB=$T/none NPU_DOCTOR_NVML_LIB=$T/none

# The tree: the main shell ignores SIGTERM (SIGKILL after --grace ends it),
# a child in its group, and a daemon in a session of its own.
cat >"$T/job.sh" <<EOF
trap '' TERM
sleep 300 &
echo \$! >"$T/child.pid"
setsid sleep 301 &
echo \$! >"$T/daemon.pid"
echo started
while :; do sleep 1; done
EOF
run_nd "$T/out" "$T/err" run --timeout 2s --grace 1 --quiet --json-summary="$T/sum.json" -- sh "$T/job.sh"
expect_rc 124 "a job past --timeout: exit 124"
assert_contains "$T/out" "started" "the job's output passed through"
assert_contains "$T/err" "--timeout 2 s reached" "the stop is said when it happens"
assert_contains "$T/err" "[exit.timeout]" "the summary names the timeout"
assert_json "$T/sum.json" "[f['id'] for f in d['findings'] if f['severity'] != 'info'] == ['exit.timeout']" \
  "the timeout is the only verdict (no 'stopped from outside', no failed children)"
assert_json "$T/sum.json" "d['job']['exit_status'] == 137" "the job itself ended from SIGKILL (it ignored SIGTERM)"
for f in child daemon; do
  p=$(cat "$T/$f.pid")
  if kill -0 "$p" 2>/dev/null && ! grep -q '^State:.*Z' "/proc/$p/status" 2>/dev/null; then
    fail "the job's $f (pid $p) outlived the timeout"
    kill -9 "$p" 2>/dev/null
  else
    pass "the job's $f is gone"
  fi
done
pgid=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["job"]["pid"])' "$T/sum.json")
if ps -eo pgid= | awk -v g="$pgid" '$1 == g' | grep -q .; then fail "processes of the job's group are left"
else pass "nothing of the job's group is left"; fi

# A job that obeys SIGTERM: its 143 is what it did, run still says 124.
run_nd "$T/out" "$T/err" run --timeout 1 --quiet --json-summary="$T/sum2.json" -- sleep 300
expect_rc 124 "plain seconds: the limit holds"
assert_json "$T/sum2.json" "d['job']['exit_status'] == 143 and any(f['id'] == 'exit.timeout' for f in d['findings'])"

# In time: the job's own status, no timeout finding.
run_nd "$T/out" "$T/err" run --timeout 1h --quiet --json-summary="$T/sum3.json" -- sh -c 'exit 5'
expect_rc 5 "a job that ends before the limit keeps its status"
assert_json "$T/sum3.json" "not any(f['id'] == 'exit.timeout' for f in d['findings'])" "no timeout finding"
assert_not_contains "$T/err" "reached" "nothing said about a limit not reached"

for bad in 0 -5 10x 1.5.2 s m "" 1e3; do
  run_nd "$T/out" "$T/err" run --timeout "$bad" -- true
  expect_rc 64 "--timeout '$bad' is a usage error"
done
assert_contains "$T/err" "a duration (90s, 30m, 2h" "the message says what a duration is"
run_nd "$T/out" "$T/err" run --help
assert_contains "$T/out" "--timeout DURATION" "run --help lists --timeout"
finish
