#!/usr/bin/env bash
# `npu-doctor run` matches context rules as explain does: `within N` counts
# the job's output lines (both streams together), not only the lines on
# which some pattern matched; a repeat answered from the cache sets its
# context again. And a knowledge base loaded before the job starts
# (--rules) matches the first output at once, not late.
. "$(dirname "$0")/lib/assert.sh"

mkdir -p "$T/rules"
GETNEXT='E: op IteratorGetNext started'
TIMEOUT='[ERROR] AI CPU operator execution timeout'

# context_case NAME GAP REPEAT: the GetNext line (REPEAT times in a row, so
# the later copies come from the cache), GAP quiet lines, then the timeout.
context_case() {
  local name=$1 gap=$2 repeat=$3
  run_nd "$T/$name.out" "$T/$name.err" run --no-devices --json-summary="$T/$name.json" -- sh -c '
    i=0; while [ $i -lt "$3" ]; do echo "$1"; i=$((i + 1)); done
    i=0; while [ $i -lt "$4" ]; do echo "step $i loss 1.0"; i=$((i + 1)); done
    echo "$2"' sh "$GETNEXT" "$TIMEOUT" "$repeat" "$gap"
  expect_rc 0 "$name: the job's own status"
}

context_case far 30 1
assert_json "$T/far.json" "not any(f['id'] == 'ascend.aicpu-getnext-timeout' for f in d['findings'])" \
  "30 output lines after GetNext: not the GetNext timeout (within 20)"
assert_json "$T/far.json" "any(f['id'] == 'ascend.aicpu-op-timeout' for f in d['findings'])" \
  "30 output lines after GetNext: the AI CPU task timeout"
context_case near 5 1
assert_json "$T/near.json" "any(f['id'] == 'ascend.aicpu-getnext-timeout' for f in d['findings'])" \
  "5 output lines after GetNext: the GetNext timeout"
# 40 copies of the GetNext line: the last, from the cache, is 5 lines before the timeout.
context_case repeated 5 40
assert_json "$T/repeated.json" "any(f['id'] == 'ascend.aicpu-getnext-timeout' for f in d['findings'])" \
  "a repeated GetNext line keeps its context: the GetNext timeout"

# Rules loaded before the job: the first block is matched on arrival.
run_nd "$T/sync.out" "$T/sync.err" run --no-devices --rules "$T/rules" --json-summary="$T/sync.json" -- \
  sh -c 'echo "RuntimeError: NPU out of memory. Tried to allocate 2.00 GiB"; exit 1'
expect_rc 1 "sync: the job's own status"
assert_json "$T/sync.json" "any(f['category'] == 'device-oom' for f in d['findings'])" "sync: the OOM is found"
assert_json "$T/sync.json" "d['facts']['job']['matching']['lines_matched_late'] == 0" \
  "sync: the first output was matched at once, not from the backlog"
finish
