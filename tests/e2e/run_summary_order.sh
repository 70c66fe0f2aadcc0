#!/usr/bin/env bash
# `run`'s summary lists the findings from the job's output as `explain` ranks
# them on the same output (root cause first), not in the order the lines
# came; and a failure alerted while the job ran, then judged again at its
# end, is one finding with the end's wording, not a repeat.
. "$(dirname "$0")/lib/assert.sh"

# order_case NAME LINE...: a job prints the lines (with quiet steps between,
# so no wrapper window joins them); its summary's order must be explain's.
order_case() {
  local name=$1
  shift
  run_nd "$T/$name.out" "$T/$name.err" run --no-devices --json-summary="$T/$name.json" -- python3 -c '
import sys
for i, line in enumerate(sys.argv[1:]):
    if i:
        for k in range(40):
            print("step %d loss 1.0" % k, flush=True)
    print(line, flush=True)
' "$@"
  expect_rc 0 "$name: the job's own status"
  run_nd "$T/$name.explain" "$T/$name.explain.err" explain --json "$T/$name.out"
  # The text summary: the finding lines after the job's summary line.
  sed -n '/^npu-doctor: python3 -c .* exit 0 after/,$p' "$T/$name.err" |
    sed -n 's/^npu-doctor: \(error\|warning\|note\): .*  \[\([^]]*\)\]$/\2/p' >"$T/$name.text-ids"
  if python3 - "$T/$name.json" "$T/$name.explain" "$T/$name.text-ids" <<'PY'
import json, sys
run = [f["id"] for f in json.load(open(sys.argv[1]))["findings"]]
exp = [f["id"] for f in json.load(open(sys.argv[2]))["findings"]]
text = open(sys.argv[3]).read().split()
common = [i for i in exp if i in run]
ok = len(common) >= 2 and [i for i in run if i in common] == common and [i for i in text if i in common] == common
print("    run --json:", run, "\n    text summary:", text, "\n    explain:", exp)
sys.exit(0 if ok else 1)
PY
  then pass "$name: the summary (JSON and text) ranks as explain does"
  else fail "$name: the summary's order is not explain's"; fi
}

# A CANN wrapper line, then the specific cause: the cause first.
order_case wrapper 'EZ9999: Inner Error!' \
  'RuntimeError: NPU out of memory. Tried to allocate 2.00 GiB (NPU 0; 60.97 GiB total capacity)'
assert_json "$T/wrapper.json" 'd["findings"][0]["id"] == "ascend.device-oom"' "wrapper: the device OOM leads the summary"

# A peer's NCCL error, then the launcher's report that a rank died by -9:
# the killed rank explains its peers (the causal chain), though it came last.
order_case chain '[rank0]: torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:1970, remote process exited or there was a network error, NCCL version 2.20.5' \
  '  exitcode  : -9 (pid: 1235)'
assert_json "$T/chain.json" 'd["findings"][0]["id"] == "host.launcher-sigkill"' "chain: the killed rank leads the summary"

# A worker killed while the job runs (alerted live), then the job exits 0:
# one finding, titled by the end-of-job verdict, not "seen 2 times"; its
# evidence names where the status came from (an exit notice or the zombie
# the parent never reaped).
run_nd "$T/kid.out" "$T/kid.err" run --no-devices --json-summary="$T/kid.json" -- python3 -c '
import os, signal, subprocess, time
p = subprocess.Popen(["sleep", "60"])
time.sleep(1.5)
os.kill(p.pid, signal.SIGKILL)
time.sleep(3)
'
expect_rc 0 "killed worker: the job's own status"
assert_json "$T/kid.json" 'len([f for f in d["findings"] if f["id"] == "exit.child-failed"]) == 1' "killed worker: one finding"
assert_json "$T/kid.json" 'any(f["id"] == "exit.child-failed" and f["title"].startswith("The job exited 0, but one of its processes died from SIGKILL") for f in d["findings"])' \
  "killed worker: the end-of-job title is kept"
assert_json "$T/kid.json" 'any(e.startswith("the kernel'"'"'s exit notices: ") or e.startswith("the status its unreaped zombie kept: ") for f in d["findings"] for e in (x["text"] for x in f["evidence"]))' \
  "killed worker: the evidence says where the status came from"
sed -n '/^npu-doctor: python3 -c .* exit 0 after/,$p' "$T/kid.err" >"$T/kid.summary"
assert_contains "$T/kid.err" "A process of the job failed while the job goes on" "killed worker: alerted while the job ran"
assert_contains "$T/kid.summary" "The job exited 0, but one of its processes died from SIGKILL" "killed worker: the summary's title"
assert_not_contains "$T/kid.summary" "seen 2 times" "killed worker: not counted twice"
finish
