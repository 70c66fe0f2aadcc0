#!/usr/bin/env bash
# explain ranks the first real error above the launcher's and the peers'
# reports of it (issue 9): a rank killed by SIGKILL is a consequence of an
# earlier error, yet it explains the peers that only saw the rank vanish;
# a CPU-only torch error next to pip reinstalling torch is a version
# mismatch; hints without an error line (hangs, CPU fallback) are warnings.
. "$(dirname "$0")/lib/assert.sh"

# A device OOM on rank 1, then torchrun's report that the rank died by -9.
printf '%s\n' '[rank1]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 1 has a total capacity of 79.1 GiB' \
  'E0101 10:00:00.000000 1 torch/distributed/elastic/multiprocessing/api.py:826] failed (exitcode: -9) local_rank: 1 (pid: 1235) of binary: /usr/bin/python' \
  'torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ' '  exitcode  : -9 (pid: 1235)' >"$T/oom9.log"
run_nd "$T/out" "$T/err" explain --json "$T/oom9.log"
expect_rc 2 "OOM then SIGKILL report explained"
assert_json "$T/out" 'd["findings"][0]["id"] == "cuda.device-oom"' "the device OOM comes before the launcher's -9"
assert_json "$T/out" '[f["id"] for f in d["findings"]].index("host.launcher-sigkill") > 0' "the -9 report is still listed"

# No earlier error: the -9 explains the peer's NCCL error and the watchdog.
printf '%s\n' '[rank0]: torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:1970, remote process exited or there was a network error, NCCL version 2.20.5' \
  '[rank0]:[E ProcessGroupNCCL.cpp:563] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=5, OpType=ALLREDUCE) ran for 600035 milliseconds before timing out.' \
  '  exitcode  : -9 (pid: 1235)' >"$T/peer9.log"
run_nd "$T/out" "$T/err" explain --json "$T/peer9.log"
assert_json "$T/out" 'd["findings"][0]["id"] == "host.launcher-sigkill" and d["findings"][0]["category"] == "host-oom"' "the killed rank explains its peers"

# pip swapped torch for another (CPU) build, then CUDA is gone.
printf '%s\n' 'Attempting uninstall: torch' '    Found existing installation: torch 2.1.0+cu121' '    Uninstalling torch-2.1.0+cu121:' \
  'Successfully installed torch-2.3.0' 'AssertionError: Torch not compiled with CUDA enabled' >"$T/pip.log"
run_nd "$T/out" "$T/err" explain --json "$T/pip.log"
assert_json "$T/out" 'd["findings"][0]["id"] == "packages.torch-replaced-cpu-wheel" and d["findings"][0]["category"] == "version-mismatch"' "pip reinstall makes it a version mismatch"

# Hints without an error line come out as warnings (exit 1).
printf '%s\n' 'Thread 0x00007f5a1c3fe700 (most recent call first):' '  File "/usr/lib/python3.10/threading.py", line 320 in wait' >"$T/dump.log"
run_nd "$T/out" "$T/err" explain --json "$T/dump.log"
expect_rc 1 "a stack dump is a warning"
assert_json "$T/out" 'd["findings"][0]["id"] == "hang.stack-dump"' "stack dump read as a hang"
printf '%s\n' 'bash: line 1:  4123 Killed                  python train.py --bs 64' >"$T/killed.log"
run_nd "$T/out" "$T/err" explain --json "$T/killed.log"
assert_json "$T/out" 'd["findings"][0]["category"] == "host-oom"' "a job-control Killed line is host OOM"
printf '%s\n' 'GPU available: True (cuda), used: False' >"$T/pl.log"
run_nd "$T/out" "$T/err" explain --json "$T/pl.log"
expect_rc 1 "an unused GPU is a warning"
assert_json "$T/out" 'd["findings"][0]["category"] == "cpu-fallback"' "Lightning on the CPU is CPU fallback"
finish
