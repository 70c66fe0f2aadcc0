#!/usr/bin/env bash
# check judges the installed set against the compatibility tables under data/:
# a CANN beside an NPU driver outside its published HDK window, and a CUDA
# toolkit the driver cannot run and of another major than torch's CUDA.
# Neither install's own files say anything is wrong.
. "$(dirname "$0")/lib/assert.sh"

R=$ND_FIXTURES/roots
E=$ND_FIXTURES/env

# The healthy pairs stay quiet and say what they compared.
run_nd "$T/out" "$T/err" check --root "$R/ascend-910b-cann80" --env-file "$E/ascend-cann80-loaded.env"
expect_rc 0 "CANN 8.0.0 with driver 24.1.rc2 is a published pair"
assert_contains "$T/out" "✓ CANN 8.0.0, NPU driver 24.1.rc2 (published with Ascend HDK 24.1.0)"
assert_contains "$T/out" "✓ torch 2.4.0+cpu, torch_npu 2.4.0.post2 on Python 3.10"

# CANN 9.0.0 on a 24.1.rc2 driver: the install's own files (compatible_version_fw) are fine.
run_nd "$T/out" "$T/err" check --root "$R/ascend-cann90-old-driver" --env-file "$E/ascend-cann85-loaded.env"
expect_rc 2 "CANN 9.0.0 beside an NPU driver older than its window"
assert_contains "$T/out" "[compat.cann-driver]"
assert_contains "$T/out" "✗ CANN 9.0.0, NPU driver 24.1.rc2"
assert_contains "$T/out" "fix: upgrade the NPU driver and firmware to Ascend HDK 26.0.RC1"
assert_contains "$T/out" "or install CANN 8.2.RC1, the newest release that supports driver 24.1.rc2"
assert_not_contains "$T/out" "[ascend.firmware-incompatible]" "the firmware fits the driver: the tables and the runtime speak"
# The runtime's own required_driver_ascendhal_version says the same, with file:line evidence.
assert_contains "$T/out" "CANN 9.0.0 needs driver HAL 7.35.27 or newer, but driver 24.1.rc2 has HAL 7.35.23  [ascend.cann-driver-hal]"
assert_contains "$T/out" "/usr/local/Ascend/cann/runtime/version.info:4: required_driver_ascendhal_version=[7.35.27],[7.35.29]"
assert_contains "$T/out" "/usr/local/Ascend/driver/version.info:2: ascendhal_version=7.35.23"
run_nd "$T/j" "$T/err" check --json --root "$R/ascend-cann90-old-driver" --env-file "$E/ascend-cann85-loaded.env"
expect_rc 2 "--json"
assert_json "$T/j" 'any(f["id"] == "compat.cann-driver" and f["category"] == "version-mismatch" and f["severity"] == "error" for f in d["findings"])'
assert_json "$T/j" 'd["facts"]["ascend"]["cann"]["required_driver_ascendhal_version"] == "[7.35.27],[7.35.29]" and d["facts"]["ascend"]["driver"]["ascendhal_version"] == "7.35.23"'
# A runtime whose required HAL the driver meets stays quiet.
run_nd "$T/j" "$T/err" check --json --root "$R/ascend-910b-cann80" --env-file "$E/ascend-cann80-loaded.env"
assert_json "$T/j" 'd["facts"]["ascend"]["cann"]["required_driver_ascendhal_version"] == "7.35.19"'
assert_json "$T/j" 'not any(f["id"] == "ascend.cann-driver-hal" for f in d["findings"])'

# CUDA toolkit 13.0 beside a 535 driver (CUDA 12.2) and a cu121 torch.
run_nd "$T/out" "$T/err" check --root "$R/cuda-toolkit13" --env-file "$E/cuda-plain.env"
expect_rc 2 "CUDA toolkit newer than the driver"
assert_contains "$T/out" "[compat.cuda-toolkit-driver]"
assert_contains "$T/out" "the CUDA toolkit is 13.0.1, but the NVIDIA driver 535.104.05 supports CUDA 12.2 at most"
assert_contains "$T/out" "[compat.cuda-toolkit-torch]"
assert_contains "$T/out" "fix: update the NVIDIA driver to 580.65.06 or newer"
run_nd "$T/j" "$T/err" check --json --root "$R/cuda-toolkit13" --env-file "$E/cuda-plain.env"
assert_json "$T/j" 'd["facts"]["nvidia"]["cuda_toolkit"] == "13.0.1"'
assert_json "$T/j" '[f["severity"] for f in d["findings"] if f["id"] == "compat.cuda-toolkit-torch"] == ["warning"]'

# The same host without the toolkit: no toolkit finding, and the fact is null.
run_nd "$T/j" "$T/err" check --json --root "$R/cuda-host" --env-file "$E/cuda-plain.env"
assert_json "$T/j" 'd["facts"]["nvidia"]["cuda_toolkit"] is None'
assert_json "$T/j" 'not any(f["id"].startswith("compat.cuda-toolkit") for f in d["findings"])'

# torch built for a newer CUDA than the driver runs: the fix names a build torch 2.5 really publishes.
run_nd "$T/out" "$T/err" check --root "$R/cuda-host" --env-file "$E/cuda-torch-too-new.env"
assert_contains "$T/out" "[compat.torch-cuda-driver]"
assert_contains "$T/out" "pip install torch==2.5.1 --index-url https://download.pytorch.org/whl/cu121"
assert_not_contains "$T/out" "whl/cu122" "no index for a CUDA torch 2.5 has no wheels for"
finish
