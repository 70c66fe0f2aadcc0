#!/usr/bin/env bash
# explain DIR: a plog whose last line is HCCL set-up is a stall only when the
# job stopped there. Beside a training log that goes on for 15 minutes it is
# a note naming that log; alone, or beside a log that ends with it, it stays
# a stall warning.
. "$(dirname "$0")/lib/assert.sh"

plog() { # DIR: one process's plog ending in HCCL initialisation at 10:00:01
  mkdir -p "$1/plog"
  cat >"$1/plog/plog-4242_20240501100000.log" <<'LOG'
[INFO] ASCENDCL(4242,python):2024-05-01-10:00:00.100.000 [acl.cpp:100] aclInit start
[INFO] RUNTIME(4242,python):2024-05-01-10:00:00.200.000 [runtime.cc:120] device 0 opened
[INFO] HCCL(4242,python):2024-05-01-10:00:01.000.000 [hccl_comm.cc:100] HcclCommInitRootInfo begin
LOG
}

plog "$T/went_on"
cat >"$T/went_on/train.log" <<'LOG'
2024-05-01 10:00:00,000 INFO starting training on npu:0
2024-05-01 10:05:00,000 INFO epoch 1 step 100 loss 2.31
2024-05-01 10:15:00,000 INFO training finished
LOG
run_nd "$T/out" "$T/err" explain --json "$T/went_on"
expect_rc 0 "the job went on after the HCCL set-up: nothing above a note (exit 0)"
assert_json "$T/out" 'any(f["id"] == "shape.stalled.comm-init" and f["severity"] == "info" and any("goes on for 15 minutes" in e["text"] and e.get("file", "").endswith("train.log") for e in f["evidence"]) for f in d["findings"])' \
  "the note names the log that went on, and for how long"

plog "$T/alone"
run_nd "$T/out" "$T/err" explain --json "$T/alone"
expect_rc 1 "twin: the plog alone stops in the HCCL set-up (a warning)"
assert_json "$T/out" 'any(f["id"] == "shape.stalled.comm-init" and f["severity"] == "warning" for f in d["findings"])' \
  "twin: a stall warning"

plog "$T/stopped"
cat >"$T/stopped/train.log" <<'LOG'
2024-05-01 10:00:00,000 INFO starting training on npu:0
2024-05-01 10:00:01,200 INFO init_process_group, backend hccl, world_size 8
LOG
run_nd "$T/out" "$T/err" explain --json "$T/stopped"
assert_json "$T/out" 'any(f["id"] == "shape.stalled.comm-init" and f["severity"] == "warning" for f in d["findings"])' \
  "twin: the other log ends at the same moment: still a stall"
finish
