#!/usr/bin/env bash
# run --timeout with a job that double-forks: a daemon (setsid) whose own
# child leads a group of its own and has a child of its own. Nothing of it
# may outlive run, and stderr names each process it stopped (pid and
# command). Outcomes only, no timing.
. "$(dirname "$0")/lib/assert.sh"
export NPU_DOCTOR_DCMI_LIB=$T/none NPU_DOCTOR_NVML_LIB=$T/none
cat >"$T/job.sh" <<EOF2
trap '' TERM
python3 -c '
import os, sys, time
T = sys.argv[1]
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        os.setpgid(0, 0)
        c = os.fork()
        if c == 0:
            time.sleep(305); os._exit(0)
        open(T + "/gc.pid", "w").write(str(c))
        open(T + "/d.pid", "w").write(str(os.getpid()))
        time.sleep(304); os._exit(0)
    open(T + "/s.pid", "w").write(str(os.getpid()))
    time.sleep(303); os._exit(0)
' "$T"
while [ ! -s "$T/gc.pid" ] || [ ! -s "$T/s.pid" ]; do sleep 0.1; done
echo started
while :; do sleep 1; done
EOF2
run_nd "$T/out" "$T/err" run --timeout 2s --grace 1 --quiet -- sh "$T/job.sh"
expect_rc 124 "a job past --timeout: exit 124"
assert_contains "$T/out" "started" "the tree was up before the limit"
assert_contains "$T/err" "(pid $(cat "$T/s.pid") python3) in a session of its own" "stderr names the daemon it stopped"
for f in s d gc; do
  p=$(cat "$T/$f.pid")
  if kill -0 "$p" 2>/dev/null && ! grep -q '^State:.*Z' "/proc/$p/status" 2>/dev/null; then
    fail "process $f (pid $p) outlived run"
    kill -9 "$p" 2>/dev/null
  else
    pass "process $f (pid $p) is gone"
  fi
done
finish
