#!/usr/bin/env bash
# `npu-doctor watch --pid N` on an already-running CPU-bound Python process on
# the simulated 8x910B host: cpu-fallback (no device framework loaded: an
# error at the window). Then watch ends by itself when the process exits.
. "$(dirname "$0")/lib/assert.sh"

ROOT=${ND_FIXTURES:?}/roots/ascend-910b-cann80
sim_910b_host
/usr/bin/python3 -c 'import signal; signal.alarm(300)
while True: pass' &
job=$!
ND_BG_PIDS=$job

run_nd "$T/out" "$T/err" watch --pid "$job" --for 30 --interval 0.5 --window 3 --root "$ROOT" \
  --json-summary="$T/sum.json" --report "$T/rep"
expect_rc 2 "watch exits 2 (an error was found)"
assert_contains "$T/err" "npu-doctor: error: The job computes on the CPU while 8 Ascend NPUs sit idle"
assert_json "$T/sum.json" "d['command'] == 'watch' and d['job']['pid'] == $job and d['job']['exit_status'] is None"
assert_json "$T/sum.json" "[f['severity'] for f in d['findings'] if f['category'] == 'cpu-fallback'] == ['error']"
assert_json "$T/sum.json" "any('python' in e['text'] for f in d['findings'] for e in f['evidence'])" "frameworks: python"
assert_json "$T/rep/report.json" "d['command'] == 'watch' and len(d['series']['points']) > 10"
assert_json "$T/rep/report.json" "all('out_bytes' not in p for p in d['series']['points'])" "no output observed by watch"
if kill -0 "$job" 2>/dev/null; then pass "watch left the process running"; else fail "the process died"; fi
kill "$job"; wait "$job" 2>/dev/null
ND_BG_PIDS=

# Ends when the process exits (no --for).
sleep 2 &
s=$!
run_nd "$T/out" "$T/err" watch --pid "$s" --interval 0.5
expect_rc 0 "watch ends with the process"
assert_contains "$T/err" "no problems found"

# --fail-fast stops the watched process: exit 3.
/usr/bin/python3 -c 'import signal; signal.alarm(300)
while True: pass' &
job=$!
ND_BG_PIDS=$job
run_nd "$T/out" "$T/err" watch --pid "$job" --for 60 --interval 0.5 --window 2 --fail-fast --grace 2 --root "$ROOT"
expect_rc 3 "watch --fail-fast: exit 3"
for _ in $(seq 100); do kill -0 "$job" 2>/dev/null || break; sleep 0.1; done
wait "$job" 2>/dev/null
if kill -0 "$job" 2>/dev/null; then fail "the process survived --fail-fast"; else pass "the process was stopped"; fi
ND_BG_PIDS=
finish
