#!/usr/bin/env bash
# `npu-doctor run` never hurts the job: exit statuses (and deaths by signal)
# are the job's own, 200 MiB of mixed stdout/stderr pass byte for byte (per
# stream), a job ignoring SIGTERM is killed after --grace, a job leaving 50
# children behind leaves nothing behind, and a job whose stdout is a
# terminal still sees a terminal.
. "$(dirname "$0")/lib/assert.sh"

export NPU_DOCTOR_DCMI_LIB=$T/none NPU_DOCTOR_NVML_LIB=$T/none

for code in 0 1 2 3 42 255; do
  run_nd "$T/out" "$T/err" run -- sh -c "echo out; echo err >&2; exit $code"
  expect_rc "$code" "exit status $code preserved"
done
assert_contains "$T/out" "out"
run_nd "$T/out" "$T/err" run -- sh -c 'kill -SEGV $$'
expect_rc 139 "death by SIGSEGV: 128+11"
assert_contains "$T/err" "[exit.segfault]" "the summary explains the crash"
run_nd "$T/out" "$T/err" run -- sh -c 'kill -KILL $$'
expect_rc 137 "death by SIGKILL: 128+9"

# 200 MiB, both streams interleaved in random chunks, binary included.
SPEW=${ND_HELPERS:?}/run_spew
"$SPEW" 200 7 >"$T/a1" 2>"$T/b1"
"$ND" run --quiet --json-summary="$T/spew.json" -- "$SPEW" 200 7 >"$T/a2" 2>"$T/b2"
rc=$?
expect_rc 0 "spew job"
lines=$(cat "$T/a1" "$T/b1" | tr -cd '\n' | wc -c)
assert_json "$T/spew.json" "d['facts']['job']['output_lines'] == $lines and d['facts']['job']['output_bytes'] == 200 << 20" "every byte and line counted ($lines lines)"
if cmp -s "$T/a1" "$T/a2"; then pass "stdout byte-exact ($(stat -c %s "$T/a1") bytes, sha256 $(sha256sum <"$T/a1" | cut -c1-12))"
else fail "stdout differs"; fi
n=$(stat -c %s "$T/b1")
if [ "$(head -c "$n" "$T/b2" | sha256sum)" = "$(sha256sum <"$T/b1")" ]; then pass "stderr byte-exact ($n bytes)"
else fail "stderr differs"; fi
if tail -c +"$((n + 1))" "$T/b2" | head -n 1 | grep -q '^npu-doctor: '; then pass "only the summary follows the job's stderr"
else fail "unexpected bytes after the job's stderr"; fi
rm -f "$T/a1" "$T/a2" "$T/b1" "$T/b2"

# A job that ignores SIGTERM (and SIGINT): the second Ctrl-C escalates, SIGKILL after the grace.
"$ND" run --grace 1 -- sh -c 'trap "" TERM INT; echo $$; exec sleep 600' >"$T/out" 2>"$T/err" &
nd=$!
ND_BG_PIDS=$nd
for _ in $(seq 600); do [ -s "$T/out" ] && break; sleep 0.1; done
kill -INT "$nd"
for _ in $(seq 600); do grep -q "SIGINT passed to the job" "$T/err" && break; sleep 0.1; done
kill -INT "$nd"
wait "$nd"
rc=$?
ND_BG_PIDS=
expect_rc 137 "SIGTERM ignored: killed after the grace"
assert_contains "$T/err" "second Ctrl-C: stopping the job"
pgid=$(head -n1 "$T/out")
if [ -n "$pgid" ] && ps -eo pgid= | awk -v g="$pgid" '$1 == g' | grep -q .; then fail "processes of group $pgid left"
else pass "nothing of the job left behind (group $pgid)"; fi

# 50 children left behind by a job that exits at once.
# shellcheck disable=SC2016 # expanded by the job's sh, not here
run_nd "$T/out" "$T/err" run -- sh -c 'for i in $(seq 50); do sleep 600 & done; echo $$; exit 0'
expect_rc 0 "job forking 50 children"
pgid=$(head -n1 "$T/out")
if [ -n "$pgid" ] && ps -eo pgid= | awk -v g="$pgid" '$1 == g' | grep -q .; then
  fail "processes of group $pgid left (zombies included):"; ps -eo pid,ppid,pgid,stat,args | awk -v g="$pgid" '$3 == g' | head
else pass "no process and no zombie of the job left (group $pgid)"; fi

# Not found / not executable, as a shell says it.
run_nd "$T/out" "$T/err" run -- /nonexistent/train.py
expect_rc 127 "missing command: 127"
assert_contains "$T/err" "/nonexistent/train.py: command not found"
run_nd "$T/out" "$T/err" run -- "$ND_FIXTURES/jobs/train_cnn.py"
expect_rc 126 "not executable: 126"

# stdout is a terminal: the job sees one (a pty), and its bytes arrive unchanged.
if script -qec "$ND run --quiet -- sh -c 'test -t 1 && printf \"tty\\\\n\" || printf \"pipe\\\\n\"'" /dev/null >"$T/tty" 2>&1; then
  assert_contains "$T/tty" "tty" "the job's stdout is a terminal"
else
  fail "script(1) failed"; cat "$T/tty"
fi
finish
