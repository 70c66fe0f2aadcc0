#!/usr/bin/env bash
# `run` matches the job's output as `explain` reads the log: a message
# wrapped onto an indented line, under a "[rank0]: " prefix on every line and
# after a traceback's frames, is one logical line. The live alert, the
# summary's top finding and explain on the captured output name one rule.
. "$(dirname "$0")/lib/assert.sh"

cat >"$T/job.py" <<'PY'
import sys
lines = ["step 1 loss 2.31"]
tb = [
    "Traceback (most recent call last):",
    '  File "/work/train.py", line 88, in <module>',
    "    loss = model(batch).sum()",
    '  File "/usr/lib/python3/site-packages/torch_npu/npu/memory.py", line 41, in _alloc',
    "    return torch_npu._C._npu_alloc(size)",
    "RuntimeError: NPU out of",
    "    memory. Tried to allocate 2.00 GiB (NPU 0; 60.00 GiB total capacity; 57.10 GiB already allocated)",
]
lines += ["[rank0]: " + l for l in tb]
# One write: the job's output reaches run as one block, as a traceback
# printed at once does.
sys.stderr.write("\n".join(lines) + "\n")
sys.stderr.flush()
sys.exit(1)
PY

run_nd "$T/run.out" "$T/run.err" run --no-devices --json-summary="$T/sum.json" -- python3 "$T/job.py"
expect_rc 1 "run returns the job's own status"
# What the job wrote, as a user would capture it (2>&1 into a file).
python3 "$T/job.py" >"$T/captured.log" 2>&1
run_nd "$T/explain.json" "$T/explain.err" explain --json "$T/captured.log"
expect_rc 2 "explain finds an error in the captured log"

want=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["findings"][0]["id"])' "$T/explain.json")
if [ "$want" = ascend.device-oom ]; then
  pass "explain names the joined message's rule (ascend.device-oom)"
else
  fail "explain's top finding is '$want', not ascend.device-oom"
fi
# The live alert: the first finding block before the summary line.
live=$(sed -n '/^npu-doctor: python3 .* exit 1 after/q;s/^npu-doctor: \(error\|warning\): .*  \[\([^]]*\)\]$/\2/p' "$T/run.err" | head -1)
if [ "$live" = "$want" ]; then
  pass "run's live alert names $want"
else
  fail "run's live alert names '${live:-nothing}', explain $want"
fi
assert_json "$T/sum.json" "d['findings'][0]['id'] == '$want'" "the summary's top finding is explain's ($want)"
assert_json "$T/sum.json" "any(e.get('line') == 7 and e.get('file') == 'stderr' for e in d['findings'][0]['evidence'])" \
  "its evidence is the message's first physical line (stderr:7)"
assert_json "$T/sum.json" "'Tried to allocate 2.00 GiB' in d['findings'][0]['evidence'][0]['text']" \
  "the evidence holds the joined message"

# The same traceback written line by line, as Python's line-buffered stderr
# does, with a pause between the lines: each reaches run in a read of its
# own, and the wrapped message is still matched as one line (run holds the
# last message of a read back for its continuation).
cat >"$T/job2.py" <<'PY'
import sys, time
lines = ["step 1 loss 2.31",
    "Traceback (most recent call last):",
    '  File "/work/train.py", line 88, in <module>',
    "    loss = model(batch).sum()",
    "RuntimeError: NPU out of",
    "    memory. Tried to allocate 2.00 GiB (NPU 0; 60.00 GiB total capacity; 57.10 GiB already allocated)",
    "[rank0]: RuntimeError: NPU out of",
    "[rank0]:     memory. Tried to allocate 4.00 GiB (NPU 1; 60.00 GiB total capacity; 57.10 GiB already allocated)",
    "step 2 loss 2.29"]
for l in lines:
    sys.stderr.write(l + "\n")
    sys.stderr.flush()
    time.sleep(0.01)
sys.exit(1)
PY
run_nd "$T/run2.out" "$T/run2.err" run --no-devices --json-summary="$T/sum2.json" -- python3 "$T/job2.py"
expect_rc 1 "line by line: run returns the job's own status"
assert_json "$T/sum2.json" "d['findings'][0]['id'] == 'ascend.device-oom'" \
  "line by line: the summary's top finding is the joined message's rule"
assert_json "$T/sum2.json" \
  "any('Tried to allocate 2.00 GiB' in e['text'] and e.get('line') == 5 for e in d['findings'][0]['evidence'])" \
  "line by line: the wrapped message is one line (stderr:5) with its tail"
assert_json "$T/sum2.json" "d['findings'][0]['count'] == 2" \
  "line by line: the [rank0]-prefixed wrapped message is joined and counted too"
assert_contains "$T/run2.err" "step 2 loss 2.29" "line by line: every line passes through"
finish
