#!/usr/bin/env bash
# The facts bug reports start with (what collect_env prints): OS, kernel,
# glibc, CPU model (aarch64 Kunpeng too), CUDA toolkit, cuDNN, ROCm, in
# check's text and --json facts and in the snapshot; nvcc runs in a child
# with a deadline, so a hanging nvcc cannot hang check.
. "$(dirname "$0")/lib/assert.sh"

R=$ND_FIXTURES/roots
E=$ND_FIXTURES/env

run_nd "$T/o" "$T/e" check --root "$R/kunpeng-openeuler" --env-file "$E/plain.env"
assert_contains "$T/o" "openEuler 22.03 (LTS-SP1), kernel " "text: the distribution and kernel"
assert_contains "$T/o" "CPU HiSilicon Kunpeng-920 (0x48/0xd01)" "text: the aarch64 CPU model"
run_nd "$T/j" "$T/e" check --json --root "$R/kunpeng-openeuler" --env-file "$E/plain.env"
assert_json "$T/j" 'd["facts"]["host"]["os"] == "openEuler 22.03 (LTS-SP1)" and d["facts"]["host"]["os_id"] == "openEuler" and d["facts"]["host"]["os_version"] == "22.03"'
assert_json "$T/j" 'd["facts"]["host"]["cpu_model"] == "HiSilicon Kunpeng-920" and d["facts"]["host"]["cpu_id"] == "0x48/0xd01"'
assert_json "$T/j" 'd["facts"]["host"]["kernel"] and d["facts"]["host"]["machine"] and d["facts"]["host"]["glibc"] is None' \
  "kernel from uname; no glibc claimed for another root"
assert_json "$T/j" 'd["facts"]["toolkits"]["cuda_toolkit"]["version"] is None and d["facts"]["toolkits"]["rocm"] == []'

run_nd "$T/o" "$T/e" check --wide --root "$R/cuda-toolkit" --env-file "$E/cuda-plain.env"
assert_contains "$T/o" "Ubuntu 22.04.4 LTS" "text: Ubuntu"
assert_contains "$T/o" "CPU Intel(R) Xeon(R) Platinum 8480+"
assert_contains "$T/o" "CUDA toolkit 12.4.1 in /usr/local/cuda, cuDNN 9.1.0, ROCm 6.1.2-119 in /opt/rocm-6.1.2" "text: toolkits"
run_nd "$T/j" "$T/e" check --json --root "$R/cuda-toolkit" --env-file "$E/cuda-plain.env"
assert_json "$T/j" 'd["facts"]["toolkits"]["cuda_toolkit"]["version"] == "12.4.1" and d["facts"]["toolkits"]["cudnn"] == {"version": "9.1.0", "source": "/usr/include/cudnn_version.h"}'
assert_json "$T/j" 'd["facts"]["toolkits"]["rocm"] == [{"path": "/opt/rocm-6.1.2", "version": "6.1.2-119"}]'

# The snapshot carries the same facts.
run_nd "$T/o" "$T/e" snapshot --root "$R/cuda-toolkit" --env-file "$E/cuda-plain.env" -o "$T/snap.json"
assert_json "$T/snap.json" 'd["facts"]["host"]["os"] == "Ubuntu 22.04.4 LTS" and d["facts"]["toolkits"]["cuda_toolkit"]["version"] == "12.4.1"' \
  "snapshot: host and toolkit facts"

# On "/" this machine's own glibc and Python full version.
run_nd "$T/j" "$T/e" check --json
assert_json "$T/j" 'd["facts"]["host"]["glibc"] is None or d["facts"]["host"]["glibc"].startswith("2.")' "glibc version on /"

# nvcc on the job's PATH runs at level 2, in a child with a deadline.
mkdir -p "$T/bin"
printf '#!/bin/sh\necho "nvcc: NVIDIA (R) Cuda compiler driver"\necho "Cuda compilation tools, release 12.6, V12.6.77"\n' >"$T/bin/nvcc"
chmod +x "$T/bin/nvcc"
printf 'PATH=%s\n' "$T/bin" >"$T/job.env"
export NPU_DOCTOR_DCMI_LIB=$T/none NPU_DOCTOR_NVML_LIB=$T/none
run_nd "$T/j" "$T/e" check --json --level 2 --env-file "$T/job.env"
assert_json "$T/j" "d['facts']['toolkits']['cuda_toolkit']['nvcc'] == '$T/bin/nvcc' and d['facts']['toolkits']['cuda_toolkit']['nvcc_version'] == '12.6.77'" \
  "nvcc --version parsed"
run_nd "$T/j" "$T/e" check --json --env-file "$T/job.env"
assert_json "$T/j" 'd["facts"]["toolkits"]["cuda_toolkit"]["nvcc_version"] is None' "level 1 runs no program"
printf '#!/bin/sh\nexec sleep 60\n' >"$T/bin/nvcc"
run_nd "$T/j" "$T/e" check --json --level 2 --env-file "$T/job.env"
assert_json "$T/j" '"timed out" in d["facts"]["toolkits"]["cuda_toolkit"]["nvcc_error"]' "a hanging nvcc is cut off and said"
finish
