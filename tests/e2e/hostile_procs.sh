#!/usr/bin/env bash
# run never leaves a part of its job behind: a daemon the job started in a
# session of its own (setsid, out of the job's group, so a signal to the
# group misses it) goes with the job, when the job exits and when run is
# stopped, also if the daemon ignores SIGTERM, and with what it started.
# Odd output (binary, no newline at all) passes through byte for byte.
# Every wait is bounded; a process left behind is a failure.
. "$(dirname "$0")/lib/assert.sh"
export NO_COLOR=1

# gone PID: polls (bounded, 30 s) until PID no longer exists.
gone() {
  local i=0
  while kill -0 "$1" 2>/dev/null; do
    i=$((i + 1))
    [ "$i" -gt 300 ] && return 1
    sleep 0.1
  done
}
# wait_file FILE: polls (bounded, 30 s) until FILE is non-empty.
wait_file() {
  local i=0
  while [ ! -s "$1" ]; do
    i=$((i + 1))
    [ "$i" -gt 300 ] && return 1
    sleep 0.1
  done
}

# The job exits and leaves a daemon made by a double fork: its parent is
# gone at once, so it is never seen as a descendant of the job.
timeout 60 "$ND" run --no-devices --grace 1 -- \
  sh -c '(setsid sh -c "sleep 300 & echo \$! >$0" &); sleep 1; exit 5' "$T/d1.pid" >"$T/o" 2>"$T/e"
rc=$?
expect_rc 5 "run keeps the job's status"
assert_contains "$T/e" "(a daemon)" "the daemon is named"
d=$(cat "$T/d1.pid")
# No polling: run waits for its job's daemons, so they are gone when it ends
# (an init that kills orphans later must not make this pass).
if ! kill -0 "$d" 2>/dev/null; then pass "the daemon went with the job"; else fail "the daemon $d was left behind"; kill -9 "$d"; fi

# run is stopped; the daemon ignores SIGTERM and has a child of its own.
"$ND" run --no-devices --grace 1 -- \
  sh -c 'setsid sh -c "trap \"\" TERM; sleep 300 & echo \$! >$0.child; wait" & echo $! >"$0"; exec sleep 300' \
  "$T/d2.pid" >"$T/o" 2>"$T/e" &
nd=$!
ND_BG_PIDS="$nd"
if wait_file "$T/d2.pid" && wait_file "$T/d2.pid.child"; then
  d=$(cat "$T/d2.pid")
  c=$(cat "$T/d2.pid.child")
  kill -TERM "$nd"
  if gone "$nd"; then pass "run ends after SIGTERM"; else fail "run still running"; kill -9 "$nd"; fi
  wait "$nd" 2>/dev/null
  if ! kill -0 "$d" 2>/dev/null; then pass "the TERM-ignoring daemon is gone"; else fail "the daemon $d was left behind"; kill -9 "$d"; fi
  if ! kill -0 "$c" 2>/dev/null; then pass "the daemon's child is gone"; else fail "the daemon's child $c was left behind"; kill -9 "$c"; fi
  assert_contains "$T/e" "SIGKILL after 1 s" "the escalation is said"
else
  fail "the daemon never started"
fi
ND_BG_PIDS=""

# Binary output and output with no newline pass through unchanged.
head -c 1000000 /dev/urandom >"$T/bin"
head -c 8000000 /dev/zero | tr '\0' a >"$T/nonl"
for f in bin nonl; do
  timeout 60 "$ND" run --no-devices -- cat "$T/$f" >"$T/$f.out" 2>"$T/e"
  rc=$?
  expect_rc 0 "run of a job printing $f"
  if cmp -s "$T/$f" "$T/$f.out"; then pass "$f output passed through byte for byte"; else fail "$f output changed"; fi
done
finish
