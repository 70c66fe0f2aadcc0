#!/usr/bin/env bash
# explain judges the versions a log prints against the compatibility tables:
# torch_npu with a CANN it is not paired with, a CANN on a driver below its
# window, torch's CUDA beside nvidia-smi's driver; and stays quiet when the
# printed versions fit.
. "$(dirname "$0")/lib/assert.sh"

# torch_npu 2.1.0.post10 (CANN 8.0.0) beside CANN 7.0.0: the table's answer leads, with the lines.
cat > "$T/npu.log" <<'LOG'
[2026-11-28 09:14:02] INFO torch version: 2.1.0, torch_npu version: 2.1.0.post10
[2026-11-28 09:14:02] INFO CANN version: 7.0.0
[2026-11-28 09:14:09] Traceback (most recent call last):
RuntimeError: Initialize:torch_npu/csrc/core/npu/sys_ctrl/npu_sys_ctrl.cpp:217 NPU error, error code is 500001
LOG
run_nd "$T/out" "$T/err" explain "$T/npu.log"
expect_rc 2 "version pair wrong"
assert_contains "$T/out" "[compat.torch-npu-cann]"
assert_contains "$T/out" "torch_npu 2.1.0.post10 is paired with CANN 8.0.0, but CANN 7.0.0 is installed"
assert_contains "$T/out" "npu.log:1: torch_npu 2.1.0.post10 printed here"
assert_contains "$T/out" "npu.log:2: CANN 7.0.0 printed here"
run_nd "$T/j" "$T/err" explain --json "$T/npu.log"
assert_json "$T/j" 'd["findings"][0]["id"] == "compat.torch-npu-cann" and d["findings"][0]["category"] == "version-mismatch"' \
  "the table's answer ranks first"
assert_json "$T/j" 'd["root_cause"]["id"] == "compat.torch-npu-cann"'
assert_json "$T/j" 'd["findings"][0]["first"]["line"] == 1'

# The rule's own line: the driver below CANN 8.0.RC3's window; the fix names the HDK release.
printf '[ERROR] The driver version 23.0.rc1 is too low for CANN 8.0.RC3\n' > "$T/drv.log"
run_nd "$T/out" "$T/err" explain "$T/drv.log"
expect_rc 2 "driver too low"
assert_contains "$T/out" "NPU driver 23.0.rc1 is older than CANN 8.0.RC3 supports"
assert_contains "$T/out" "upgrade the NPU driver and firmware to Ascend HDK 24.1.RC3"

# nvidia-smi's header and collect_env: torch for CUDA 12.4 on a 12.2 driver.
cat > "$T/nv.log" <<'LOG'
| NVIDIA-SMI 535.104.05             Driver Version: 535.104.05   CUDA Version: 12.2     |
PyTorch version: 2.5.1+cu124
CUDA used to build PyTorch: 12.4
LOG
run_nd "$T/out" "$T/err" explain "$T/nv.log"
assert_contains "$T/out" "[compat.torch-cuda-driver]"
assert_contains "$T/out" "whl/cu121" "the fix names a build torch 2.5 publishes"

# Versions that fit: only info lines, hidden without --all, exit 0.
cat > "$T/ok.log" <<'LOG'
torch version: 2.4.0, torch_npu version: 2.4.0.post2
CANN version: 8.0.0
LOG
run_nd "$T/out" "$T/err" explain "$T/ok.log"
expect_rc 0 "a fitting set"
assert_not_contains "$T/out" "[compat."
run_nd "$T/out" "$T/err" explain --all "$T/ok.log"
assert_contains "$T/out" "[versions.torch-npu]" "--all shows the version lines"
assert_not_contains "$T/out" "[compat."
finish
