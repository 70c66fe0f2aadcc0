#!/usr/bin/env bash
# Forms that start or end a job from outside (an MPI launcher's remote
# daemons, a watchdog's time limit, a framework refusing the chip, a server
# that falls back to the CPU) rank the way their meaning says: the specific
# cause before the launcher's generic banner, a real error before the time
# limit it caused, and quiet near misses stay quiet.
. "$(dirname "$0")/lib/assert.sh"

first() { # JSON -> "id category severity" of the first finding, or "none"
  python3 -c 'import json,sys
f=json.load(open(sys.argv[1])).get("findings") or []
print("%s %s %s" % (f[0]["id"], f[0]["category"], f[0]["severity"]) if f else "none")' "$1"
}
expect_first() { # LOG WANT DESCRIPTION
  run_nd "$T/out" "$T/err" explain --json "$1"
  got=$(first "$T/out")
  if [ "$got" = "$2" ]; then pass "$3"; else fail "$3: got '$got', wanted '$2'"; fi
}

# The remote shell's error names the reason; Open MPI's banner lists four.
printf '%s\n' 'bash: line 1: prted: command not found' '--------------------------------------------------------------------------' \
  'PRTE was unable to reliably start one or more daemons.' 'This usually is caused by:' >"$T/prted.log"
expect_first "$T/prted.log" "mpi.remote-daemon-not-found env-not-loaded error" "a daemon missing on the remote node is the MPI environment"
printf '%s\n' 'Host key verification failed.' 'ORTE was unable to reliably start one or more daemons.' >"$T/hostkey.log"
expect_first "$T/hostkey.log" "mpi.remote-shell-refused distributed error" "an ssh refusal before the banner names the reason"
printf '%s\n' '--------------------------------------------------------------------------' 'ORTE was unable to reliably start one or more daemons.' >"$T/banner.log"
expect_first "$T/banner.log" "mpi.daemon-start-failed distributed error" "the banner alone is a distributed start-up failure"
printf '%s\n' 'Host key verification failed.' 'fatal: Could not read from remote repository.' >"$T/git.log"
run_nd "$T/out" "$T/err" explain --json "$T/git.log"
assert_not_contains "$T/out" "mpi.remote-shell-refused" "an ssh refusal outside a launch is not a launcher problem"

# A time limit is the symptom of what came before it.
printf '%s\n' 'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.1 GiB' \
  'E       Failed: Timeout >900.0s' >"$T/oomtimeout.log"
expect_first "$T/oomtimeout.log" "cuda.device-oom device-oom error" "the device OOM outranks the test timeout"
printf '%s\n' 'tests/test_ops.py::test_hardtanh' 'E       Failed: Timeout (>900.0s) from pytest-timeout.' >"$T/timeout.log"
expect_first "$T/timeout.log" "hang.time-limit hang error" "a test timeout alone reads as a hang"

# The chip decides between a mismatch and no usable device.
printf '%s\n' 'RuntimeError: Unsupported soc version: Ascend910 9391' >"$T/soc93.log"
expect_first "$T/soc93.log" "ascend.soc-not-in-build version-mismatch error" "a training chip unknown to the build is a version mismatch"
printf '%s\n' 'RuntimeError: Unsupported SOC version: Ascend310B4' >"$T/soc310b.log"
expect_first "$T/soc310b.log" "ascend.soc-not-a-target no-device error" "an inference SoC is no usable device"

# CPU fallback and a heavy reader are warnings; a light reader is nothing.
printf '%s\n' 'time=2025-01-29T10:00:00.000Z level=INFO source=gpu.go:377 msg="no compatible GPUs were discovered"' >"$T/ollama.log"
expect_first "$T/ollama.log" "fallback.llm-server-no-gpu no-device warning" "Ollama finding no GPU is a no-device warning (the CPU run follows from it)"
printf '%s\n' 'Reader Ratio: 12.031%' 'Time Unit: s, IPS Unit: steps/s' >"$T/reader.log"
expect_first "$T/reader.log" "none" "a reader share of 12% is no finding"

# Paddle's communicator set-up: stopping there is a stall, a loss after it is not.
printf '%s\n' 'I0424 08:57:03.707505  3377 nccl_context.cc:74] init nccl context nranks: 2 local rank: 0 gpu id: 0 ring id: 0' >"$T/pinit.log"
expect_first "$T/pinit.log" "shape.stalled.comm-init distributed warning" "a log that stops at Paddle's NCCL set-up stalled there"
printf '%s\n' 'I0424 08:57:03.707505  3377 nccl_context.cc:74] init nccl context nranks: 2 local rank: 0 gpu id: 0 ring id: 0' \
  'W0424 08:57:03.930370  3377 device_context.cc:447] Please NOTE: device: 0, GPU Compute Capability: 7.5, Driver API Version: 11.6, Runtime API Version: 10.2' \
  '[Epoch 0, batch 0] loss: 2.30261, acc: 0.09375' >"$T/ptrain.log"
expect_first "$T/ptrain.log" "none" "a loss after the set-up means the communicators work"

# An HF-style report just before an epoch boundary as the last line.
printf '%s\n' "{'loss': 0.52, 'learning_rate': 2e-05, 'epoch': 0.5}" "{'loss': 0.41, 'learning_rate': 1e-05, 'epoch': 0.99}" >"$T/epoch.log"
expect_first "$T/epoch.log" "shape.stalled.epoch-end hang warning" "a log that stops at epoch 0.99 stalled at the epoch end"
printf '%s\n' "{'loss': 0.52, 'learning_rate': 2e-05, 'epoch': 0.99}" "{'loss': 0.41, 'learning_rate': 1e-05, 'epoch': 1.5}" >"$T/epoch2.log"
expect_first "$T/epoch2.log" "none" "a log that went on past the boundary is no stall"
finish
