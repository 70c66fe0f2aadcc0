#!/usr/bin/env bash
# Jobs that leave their process group, and targets that are not what they
# seem: a job that turns on job control (set -m) or double-forks puts its
# children in groups of their own, in our session, where neither a signal
# to the job's group nor the daemon sweep (other sessions) reaches them;
# run must stop them with the job, when it exits and when run is stopped.
# watch of a zombie is one clear line and exit 66; another user's process,
# watched unprivileged, is watched with what can be read and says so. A
# probe past its deadline goes with everything it started, its own daemons
# too. Every wait is bounded; a process left behind is a failure.
. "$(dirname "$0")/lib/assert.sh"
export NO_COLOR=1

# alive PID: the process exists and has not ended (a zombie has ended; its
# parent here is init or the shell, never npu-doctor, which has exited).
alive() { [ -e "/proc/$1" ] && [ "$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -c1)" != Z ]; }
# wait_lines FILE N: polls (bounded, 30 s) until FILE has N lines.
wait_lines() {
  local i=0
  while [ "$(cat "$1" 2>/dev/null | wc -l)" -lt "$2" ]; do
    i=$((i + 1))
    [ "$i" -gt 300 ] && return 1
    sleep 0.1
  done
}
# none_left WHAT PIDFILE: every pid in PIDFILE has ended.
none_left() {
  local left="" p
  for p in $(cat "$2"); do alive "$p" && left="$left $p"; done
  if [ -z "$left" ]; then pass "$1: none of the job's processes is left"
  else
    fail "$1: left behind:$left"
    for p in $left; do tr '\0' ' ' <"/proc/$p/cmdline" | sed 's/^/    | /'; echo; kill -9 "$p" 2>/dev/null; done
  fi
}

# The job: set -m puts each background job in a group of its own; a
# subshell's background child (a double fork) is orphaned at once; a
# set -m subshell nests one more group. Each writes its pid.
cat >"$T/job.sh" <<'EOF'
#!/bin/bash
pids=$1
set -m
sleep 301 & echo $! >>"$pids"
( sleep 302 & echo $! >>"$pids" )
( set -m; sleep 303 & echo $! >>"$pids"; wait ) &
echo $! >>"$pids"
# The nested group writes its pid on its own time: leave only once it has
# (bounded), or run may stop it before it says who it is.
for _ in $(seq 200); do [ "$(wc -l <"$pids")" -ge 4 ] && break; sleep 0.05; done
[ "$2" = stay ] && { echo $$ >>"$pids"; sleep 300; }
exit 4
EOF
chmod +x "$T/job.sh"

: >"$T/p1"
timeout 60 "$ND" run --no-devices --grace 1 -- "$T/job.sh" "$T/p1" >"$T/o" 2>"$T/e"
rc=$?
expect_rc 4 "run keeps the job's status"
assert_contains "$T/e" "in a process group of" "the processes that left the job's group are named"
[ "$(wc -l <"$T/p1")" -eq 4 ] && pass "the job started its four processes" || fail "the job wrote $(wc -l <"$T/p1") pids"
# No polling: run waits for what it stops, so they are gone when it ends.
none_left "the job exited" "$T/p1"

for sig in TERM INT; do
  : >"$T/p2"
  timeout 60 "$ND" run --no-devices --grace 1 -- "$T/job.sh" "$T/p2" stay >"$T/o" 2>"$T/e" &
  nd=$!
  ND_BG_PIDS=$nd
  if wait_lines "$T/p2" 5; then pass "SIG$sig: the job is running"; else fail "SIG$sig: the job did not start"; fi
  kill -"$sig" "$nd"
  wait "$nd"
  rc=$?
  ND_BG_PIDS=""
  [ "$rc" -ne 124 ] && pass "SIG$sig: run ends (exit $rc)" || fail "SIG$sig: run did not end"
  none_left "SIG$sig to npu-doctor" "$T/p2"
done

# ---- watch of a zombie: ended, nothing to watch
python3 -c '
import os, sys, time
pid = os.fork()
if pid == 0:
    os._exit(0)
open(sys.argv[1], "w").write("%d\n" % pid)
time.sleep(30)' "$T/zpid" &
zparent=$!
ND_BG_PIDS=$zparent
wait_lines "$T/zpid" 1
z=$(cat "$T/zpid")
run_nd "$T/o" "$T/e" watch --no-devices --pid "$z" --for 1
expect_rc 66 "watch of a zombie"
assert_contains "$T/e" "has already exited" "watch says the process has ended"
[ "$(wc -l <"$T/e")" -eq 1 ] && pass "one line" || fail "$(wc -l <"$T/e") lines on stderr"
kill "$zparent" 2>/dev/null
wait "$zparent" 2>/dev/null
ND_BG_PIDS=""

# ---- watch of another user's process, unprivileged: its open files and
# I/O counters are closed to us. It is watched with what can be read, the
# user is told once, and the summary says what was hidden instead of
# passing for a clean bill of health.
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
  sleep 60 &
  victim=$!
  ND_BG_PIDS=$victim
  # A folder the second user may write, outside $T (closed to others).
  NB=$(mktemp -d) && chmod 755 "$NB" && mkdir "$NB/w" && chown 65534 "$NB/w"
  setpriv --reuid=65534 --regid=65534 --clear-groups "$ND" watch --no-devices --pid "$victim" --for 1 \
    --json-summary="$NB/w/s.json" >"$T/o" 2>"$T/e"
  rc=$?
  [ "$rc" != 66 ] && pass "unprivileged watch of root's process runs (exit $rc)" || fail "refused: $(cat "$T/e")"
  assert_contains "$T/e" "belongs to uid 0" "watch says whose process it is"
  [ "$(grep -c 'belongs to uid' "$T/e")" -eq 1 ] && pass "said once" || fail "$(grep -c 'belongs to uid' "$T/e") times"
  assert_json "$NB/w/s.json" 'any(f["id"] == "monitor.limited-view" for f in d["findings"])' \
    "the summary says what could not be seen"
  kill "$victim" 2>/dev/null
  wait "$victim" 2>/dev/null
  ND_BG_PIDS=""
  rm -rf "$NB"
else
  pass "unprivileged watch: needs root and setpriv to run a second user (not here)"
fi

# ---- a probe that hangs past its deadline, with a child that ignores
# SIGTERM and a daemon in a session of its own: none of them outlives check.
cat >"$T/hang-python" <<EOF
#!/bin/sh
echo \$\$ >>"$T/p3"
sh -c 'trap "" TERM; echo \$\$ >>"$T/p3"; exec sleep 120' &
setsid sh -c 'echo \$\$ >>"$T/p3"; exec sleep 121' &
trap "" TERM INT
sleep 119
EOF
chmod +x "$T/hang-python"
: >"$T/p3"
timeout 120 "$ND" check --level 2 --timeout 1 --python "$T/hang-python" >"$T/o" 2>"$T/e"
rc=$?
expect_rc 2 "check with a hanging probe"
assert_contains "$T/o" "[python.probe-timeout]" "the timeout is a finding"
[ "$(wc -l <"$T/p3")" -ge 3 ] && pass "the probe started its children" || fail "the probe wrote $(wc -l <"$T/p3") pids"
none_left "the hanging probe" "$T/p3"
finish
