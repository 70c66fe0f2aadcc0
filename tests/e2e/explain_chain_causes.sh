#!/usr/bin/env bash
# explain puts the cause printed anywhere in a log before the consequence
# the vendor documents for it (issue 9): a missing library before the TSD,
# graph-engine or "no binary" failure it caused, an unavailable driver
# before the checkpoint that could not be mapped to CUDA; NCCL's "Last
# error:" is read together with the line that names the error, and an
# IPython traceback's source lines are not read as one message.
. "$(dirname "$0")/lib/assert.sh"

# The AI CPU scheduler library is missing, so TSD cannot start the device
# side; the EH9999 wrapper comes last.
printf '%s\n' \
  '[WARNING] TDT(88,python):2024-10-23-20:50:03.868.399 [thread_mode_manager.cpp:114][StartCallAICPU][tid:88] [ThreadModeManager] Can not open libaicpu_scheduler.so, deviceId[0], reason[/usr/lib64/libaicpu_scheduler.so: cannot open shared object file: No such file or directory]' \
  '[ERROR] RUNTIME(88,python):2024-10-23-20:50:03.900.000 [runtime.cc:2060]88 PrintfTsdError:TsdOpen failed. devId=0, tdt error=31[FUNC:PrintfTsdError] [FILE: runtime.cc][LINE:2060]' \
  'EH9999: Inner Error!' \
  'EH9999  [Init][Env]init env failed![FUNC:ReportInnerError][FILE:log_inner.cpp][LINE:145]' >"$T/tsd.log"
run_nd "$T/out" "$T/err" explain --json "$T/tsd.log"
expect_rc 2 "TSD failure explained"
assert_json "$T/out" 'd["findings"][0]["category"] == "env-not-loaded"' "the missing library leads the TSD failure"
assert_json "$T/out" '"ascend.device-busy.tsd-open" in [f["id"] for f in d["findings"]]' "the TSD failure is still listed"

# The same library line far from the graph failure (another block of the
# plog): the graph failure still names it as its cause.
{
  printf '%s\n' '[ERROR] GE(1234,python):2024-05-01-10:00:00.100.000 [host_cpu_engine.cc:288]1234 LoadLib: ErrorNo: 1343225860(Internal errors) [INIT][DEFAULT][Invoke][DlOpen] failed. path = /usr/local/Ascend/ascend-toolkit/7.0.RC1/opp/built-in/op_impl/host_cpu/libops_host_cpu.so, error = /usr/local/Ascend/ascend-toolkit/7.0.RC1/opp/built-in/op_impl/host_cpu/libops_host_cpu.so: cannot open shared object file: No such file or directory'
  for i in $(seq 1 60); do printf '[INFO] GE(1234,python):2024-05-01-10:00:%02d.000.000 step %d\n' $((i % 60)) "$i"; done
  printf '%s\n' '[ERROR] GE(1234,python):2024-05-01-10:01:00.000.000 Run graph failed, graph_id 1'
} >"$T/ge.log"
run_nd "$T/out" "$T/err" explain --json "$T/ge.log"
assert_json "$T/out" 'd["findings"][0]["category"] == "env-not-loaded"' "the missing library leads the graph failure"

# Without the library line the graph failure stands alone.
grep -v 'libops_host_cpu' "$T/ge.log" >"$T/ge-only.log"
run_nd "$T/out" "$T/err" explain --json "$T/ge-only.log"
assert_json "$T/out" 'd["findings"][0]["id"] == "ascend.ge.graph-failed"' "a graph failure alone is reported as such"

# An operator with no binary after the operator library failed to load.
printf '%s\n' 'OSError: libcust_opapi.so: cannot open shared object file: No such file or directory' \
  'EZ9999: 2024-05-17-18:46:14.721.067  Op Equal does not has any binary.' >"$T/nobin.log"
run_nd "$T/out" "$T/err" explain --json "$T/nobin.log"
assert_json "$T/out" 'd["findings"][0]["category"] == "env-not-loaded"' "the missing library leads 'no binary'"

# NCCL 2.1x: the cause is on the line after "Last error:".
printf '%s\n' \
  '[rank1]: torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:317, unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version 2.20.5' \
  '[rank1]: ncclUnhandledCudaError: Call to CUDA function failed.' '[rank1]: Last error:' "[rank1]: Cuda failure 'out of memory'" >"$T/nccl.log"
run_nd "$T/out" "$T/err" explain --json "$T/nccl.log"
assert_json "$T/out" 'd["findings"][0]["category"] == "device-oom"' "the line after 'Last error:' names the cause"
assert_json "$T/out" '"Last error:" in d["findings"][0]["evidence"][0]["text"]' "evidence shows the joined message"

# IPython: the context lines of a frame are source code, not the message.
printf '%s\n' '---------------------------------------------------------------------------' \
  'RuntimeError                              Traceback (most recent call last)' \
  'Cell In[12], line 3' '      1 import torch' '----> 3 model.to("cuda")' '' \
  'File ~/venv/lib/python3.10/site-packages/torch/cuda/__init__.py:247, in _lazy_init()' \
  '    245 if "CUDA_MODULE_LOADING" not in os.environ:' '--> 247 torch._C._cuda_init()' '' \
  'RuntimeError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and installed a driver from http://www.nvidia.com/Download/index.aspx' >"$T/ipy.log"
run_nd "$T/out" "$T/err" explain --json "$T/ipy.log"
assert_json "$T/out" 'd["findings"][0]["category"] == "no-device"' "the exception after an IPython traceback is the finding"
finish
