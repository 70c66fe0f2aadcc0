#!/usr/bin/env bash
# Rules whose meaning depends on the rest of the log: an undefined symbol is
# an Ascend pairing only where the log names the Ascend stack, a bus error is
# the /dev/shm size only with shared memory in play, a cuBLAS/cuDNN start-up
# failure is memory only with memory exhaustion near it, an LLM server's CPU
# run follows from the GPU it could not use, HCCL's "init success" ends the
# communicator set-up, and a GE start-up failure yields to the cause named
# beside it.
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

# Undefined symbols: the torch_npu fix only where the log is an Ascend one.
printf '%s\n' 'Traceback (most recent call last):' '  File "train.py", line 3, in <module>' '    import torchvision' \
  'ImportError: /opt/conda/lib/python3.10/site-packages/torchvision/_C.so: undefined symbol: _ZN3c1017RegisterOperatorsD1Ev' >"$T/nv-sym.log"
expect_first "$T/nv-sym.log" "torch.extension-undefined-symbol version-mismatch error" "a CUDA-only undefined symbol gets the torch-generic rule"
run_nd "$T/out" "$T/err" explain "$T/nv-sym.log"
assert_not_contains "$T/out" "torch_npu" "a CUDA-only undefined symbol is not told to reinstall torch_npu"
printf '%s\n' 'ERROR: CANNOT find the kernel cache, rebuilding' \
  'ImportError: /opt/conda/lib/python3.10/site-packages/torchvision/_C.so: undefined symbol: _ZN3c1017RegisterOperatorsD1Ev' >"$T/cannot.log"
expect_first "$T/cannot.log" "torch.extension-undefined-symbol version-mismatch error" "the word CANNOT does not make a log an Ascend one"
printf '%s\n' 'import torch_npu' \
  'ImportError: /usr/local/lib/python3.9/site-packages/torch_npu/lib/libtorch_npu.so: undefined symbol: _ZN3c104impl3cow11cow_deleterEPv' >"$T/asc-sym.log"
expect_first "$T/asc-sym.log" "ascend.version.undefined-symbol version-mismatch error" "torch_npu's undefined symbol keeps the Ascend rule"

# Bus errors: with DataLoader workers or a container in the log it is /dev/shm's size.
printf '%s\n' 'Epoch 1/10' 'Bus error (core dumped)' >"$T/bus.log"
expect_first "$T/bus.log" "host.bus-error host-oom error" "a bare bus error stays a host-memory error"
printf '%s\n' 'train: DataLoader with num_workers=8' 'Bus error (core dumped)' >"$T/bus-shm.log"
expect_first "$T/bus-shm.log" "host.bus-error-shm config error" "a bus error beside DataLoader workers is the shm-size setting"

# A bare native crash, nothing beside it, is a build for another version;
# a device's own fault line beside it still names the device.
printf '%s\n' 'Epoch 1/3: loading model' 'step 0 loss 2.31' 'Segmentation fault (core dumped)' >"$T/segv.log"
expect_first "$T/segv.log" "generic.process-crashed version-mismatch error" "a bare segmentation fault is filed as a version mismatch"
printf '%s\n' 'RuntimeError: CUDA error: an illegal memory access was encountered' 'Segmentation fault (core dumped)' >"$T/segv-dev.log"
run_nd "$T/out" "$T/err" explain --json "$T/segv-dev.log"
case "$(first "$T/out")" in *" version-mismatch "*|generic.process-crashed*) fail "a device error beside the crash lost to the bare-crash rule: $(first "$T/out")" ;;
  *) pass "a device error beside the crash is not the bare-crash rule" ;; esac

# cuDNN/cuBLAS not initialised: memory only with exhaustion near it.
printf '%s\n' 'RuntimeError: cuDNN error: CUDNN_STATUS_NOT_INITIALIZED' >"$T/cudnn.log"
expect_first "$T/cudnn.log" "cuda.cudnn-not-initialized version-mismatch error" "cuDNN's NOT_INITIALIZED alone is a library mismatch"
printf '%s\n' 'GPU 0 memory: 23.50 GiB already allocated; 12.00 MiB free' 'RuntimeError: cuDNN error: CUDNN_STATUS_NOT_INITIALIZED' >"$T/cudnn-mem.log"
expect_first "$T/cudnn-mem.log" "cuda.cudnn-not-initialized-oom device-oom error" "with the GPU full beside it, cuDNN's NOT_INITIALIZED is memory"
printf '%s\n' 'Could not create cudnn handle: CUDNN_STATUS_NOT_INITIALIZED' >"$T/tf-handle.log"
expect_first "$T/tf-handle.log" "cuda.library-init-oom device-oom error" "a failed cuDNN handle creation stays a memory error"

# An LLM server that says why it found no GPU: the missing device leads, the CPU run follows.
printf '%s\n' 'time=2024-03-30T15:05:41.304Z level=INFO source=gpu.go:340 msg="Unable to load cudart CUDA management library /tmp/o/libcudart.so.11.0: cudart init failure: 35"' \
  'time=2025-02-20T21:32:35.060Z level=INFO source=types.go:137 msg="inference compute" id=0 library=cpu variant="" compute="" driver=0.0 name="" total="15.6 GiB" available="15.1 GiB"' >"$T/ollama.log"
expect_first "$T/ollama.log" "fallback.llm-server-no-gpu no-device warning" "a cudart init failure leads the CPU run it caused"
assert_contains "$T/out" "fallback.llm-server-cpu" "the CPU run is still reported"
printf '%s\n' 'qwen2:7b        e0d4e1163c58    4.7 GB  100% CPU        4 minutes from now' >"$T/ollama-ps.log"
expect_first "$T/ollama-ps.log" "fallback.llm-server-cpu cpu-fallback warning" "the CPU run alone is a CPU-fallback warning"

# HCCL communicator set-up: a log that stops after the success line did not stop there.
printf '%s\n' '[INFO] HCCL(1234,python):2024-05-01-10:00:00.000.000 [op_base.cc:100] Entry-HcclCommInitRootInfo: ranks[8], rank[3]' \
  '[INFO] HCCL(1234,python):2024-05-01-10:00:01.000.000 [op_base.cc:200] HcclCommInitRootInfo success, take time [237063]us, rankNum[8], rank[3]' >"$T/hccl-ok.log"
expect_first "$T/hccl-ok.log" "none" "a log that ends with HcclCommInitRootInfo success did not stall in comm init"
printf '%s\n' '[INFO] HCCL(1234,python):2024-05-01-10:00:00.000.000 [op_base.cc:100] Entry-HcclCommInitRootInfo: ranks[8], rank[3]' >"$T/hccl-stall.log"
expect_first "$T/hccl-stall.log" "shape.stalled.comm-init distributed warning" "a log that ends at the HCCL entry line stalled in comm init"

# GE start-up failure: another rule's cause leads; alone it keeps its finding.
printf '%s\n' 'Successfully installed numpy-2.0.2' 'RuntimeError: GEInitialize failed. ret = 1343225857' >"$T/ge-numpy.log"
expect_first "$T/ge-numpy.log" "ascend.numpy2 version-mismatch warning" "numpy 2 beside a GE start-up failure leads it"
printf '%s\n' '[ERROR] HCCL(1234,python):2024-05-01-10:00:00.000.000 [hccl_comm.cc:100] EI0006: Getting socket times out. Reason: Remote Rank did not send the data in time.' \
  'RuntimeError: GEInitialize failed. ret = 1343225857' >"$T/ge-hccl.log"
expect_first "$T/ge-hccl.log" "hccl.socket-timeout distributed error" "an HCCL cause beside a GE start-up failure leads it"
printf '%s\n' 'RuntimeError: GEInitialize failed. ret = 1343225857' >"$T/ge.log"
expect_first "$T/ge.log" "ascend.ge.init-failed env-not-loaded error" "a GE start-up failure alone is the CANN environment"
finish
