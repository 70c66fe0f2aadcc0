#!/usr/bin/env bash
# Multi-rank: rank 5 runs out of device memory at 10:00:01, then every rank
# times out in HCCL at 10:02. explain must name device-oom on rank 5 first,
# although rank 0's log (read first) only shows the timeout.
. "$(dirname "$0")/lib/assert.sh"

mk_rank() { # RANK FILE
  local r=$1 f=$2 i
  {
    for i in $(seq 1 200); do
      printf '[INFO] RUNTIME(%d,python):2024-05-01-09:59:%02d.%03d.000 [stream.cc:%d] stream %d task %d launched\n' \
        $((1000 + r)) $((i % 60)) $((i % 1000)) "$i" "$r" "$i"
    done
    if [ "$r" -eq 5 ]; then
      echo '[ERROR] RUNTIME(1005,python):2024-05-01-10:00:01.100.200 [npu_driver.cc:1069]rtMalloc execute failed, reason=[driver error:out of memory]'
      echo 'Traceback (most recent call last):'
      echo '  File "train.py", line 88, in <module>'
      echo 'RuntimeError: NPU out of memory. Tried to allocate 2.00 GiB (NPU 5; 60.97 GiB total capacity; 56.10 GiB already allocated; 1.02 GiB free; 58.62 GiB reserved in total by PyTorch)'
    fi
    printf '[ERROR] HCCL(%d,python):2024-05-01-10:02:00.%03d.000 [transport.cc:77] EI0002: The wait execution of the Notify register times out. Reason: The Notify register has not received the Notify record from remote rank [5].\n' \
      $((1000 + r)) "$r"
    printf 'EI0006: [PID: %d] 2024-05-01-10:02:01.000.000 Getting socket times out. Reason: Remote Rank did not send the data in time.\n' $((1000 + r))
  } >"$f"
}

mkdir -p "$T/job/logs"
for r in 0 1 2 3 4 5 6 7; do mk_rank "$r" "$T/job/logs/rank_$r.log"; done

run_nd "$T/out.json" "$T/err" explain --json "$T/job"
expect_rc 2 "errors found"
assert_json "$T/out.json" 'd["schema"] == "npu-doctor/2" and d["command"] == "explain"' "schema and command"
assert_json "$T/out.json" 'd["findings"][0]["category"] == "device-oom"' "device-oom is the root cause"
assert_json "$T/out.json" 'd["findings"][0]["rank"] == 5' "root cause on rank 5"
assert_json "$T/out.json" 'd["findings"][0]["first"]["file"].endswith("rank_5.log")' "first location is rank 5's log"
assert_json "$T/out.json" 'any(f["category"] == "distributed" and f["count"] >= 8 for f in d["findings"][1:])' "HCCL timeouts grouped, counted across ranks"
assert_json "$T/out.json" 'd["root_cause"]["rank"] == 5' "root_cause names rank 5"
assert_json "$T/out.json" 'any(f["category"] == "distributed" and "(ranks 0-7)" in f["title"] for f in d["findings"])' "timeouts name the ranks they hit"

run_nd "$T/out.txt" "$T/err" explain "$T/job"
assert_contains "$T/out.txt" "Root cause (rank 5" "text names rank 5"
assert_contains "$T/out.txt" "NPU out of memory" "text shows the OOM title"
assert_contains "$T/out.txt" "rank_5.log:" "text shows evidence file:line"

# torchrun-style single log: "[rankN]:" prefixes give the rank, and the
# earliest timestamp across ranks wins when two ranks hit the same error.
{
  echo '[rank2]: 2024-05-01 10:00:05,000 - ERROR - torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.00 GiB'
  echo '[rank6]: 2024-05-01 10:00:01,000 - ERROR - torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.00 GiB'
  echo '[rank0]: 2024-05-01 10:10:00,000 - ERROR - [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=9, OpType=ALLREDUCE) ran for 600039 milliseconds before timing out.'
} >"$T/torchrun.log"
run_nd "$T/tr.json" "$T/err" explain --json "$T/torchrun.log"
assert_json "$T/tr.json" 'd["findings"][0]["category"] == "device-oom" and d["findings"][0]["rank"] == 6' "earliest OOM (rank 6) named"
assert_json "$T/tr.json" 'd["findings"][0]["count"] == 2' "both OOM lines grouped"

# Wrappers defer: EZ9999 Inner Error next to an aicore error reports the aicore error.
{
  echo 'EZ9999: Inner Error!'
  echo 'EZ9999: [PID: 7] 2024-05-01-10:00:00.000.000 The error from device(chipId:0, dieId:0), serial number is 5, there is an aicore error, core id is 12'
  echo '        TraceBack (most recent call last):'
} >"$T/wrap.log"
run_nd "$T/wrap.json" "$T/err" explain --json "$T/wrap.log"
assert_json "$T/wrap.json" 'd["findings"][0]["id"] == "ascend.aicore-error"' "specific aicore line outranks the wrapper"
assert_json "$T/wrap.json" 'all(f["id"] != "ascend.cann.ez9999" for f in d["findings"])' "wrapper deferred"
run_nd "$T/wrap2.json" "$T/err" explain --json --all "$T/wrap.log"
assert_json "$T/wrap2.json" 'any(f["id"] == "ascend.cann.ez9999" for f in d["findings"])' "--all still lists the wrapper"

# outranks / causes before symptoms: tbe import error before GE/ACL errors
# printed after it.
{
  echo 'RuntimeError: GEInitialize failed.'
  echo 'ModuleNotFoundError: No module named '"'"'tbe'"'"
  echo 'RuntimeError: SetPrecisionMode:build/CMakeFiles/torch_npu.dir/compiler_depend.ts:155 NPU function error: at_npu::native::AclSetCompileopt(aclCompileOpt::ACL_PRECISION_MODE, precision_mode), error code is 500001'
} >"$T/tbe.log"
run_nd "$T/tbe.json" "$T/err" explain --json "$T/tbe.log"
assert_json "$T/tbe.json" 'd["findings"][0]["id"] == "env.cann-not-loaded.tbe"' "tbe import error is the root cause"
finish
