#!/usr/bin/env bash
# e2e: the NVIDIA device layer through the built binary and the simulated
# libnvidia-ml.so.1 / libcuda.so.1: a process NVML lists is on the GPU in
# `ps`; a hanging NVML, a version mismatch (code 18) and failing or slow CUDA
# smoke tests become findings, never a hang of npu-doctor.
# shellcheck source=tests/e2e/lib/assert.sh
. "$(dirname "$0")/lib/assert.sh"

export NPU_DOCTOR_NVML_LIB="$ND_SIM/libnvidia-ml.so.1"
export NPU_DOCTOR_CUDA_LIB="$ND_SIM/libcuda.so.1"
export NPU_DOCTOR_DCMI_LIB="$T/none/libdcmi.so"        # keep Ascend out of it
export ND_SIM_STATE="$T/state.ini"
unset CUDA_VISIBLE_DEVICES

# A real process that NVML reports on GPU 1 with 4 GiB.
sleep 120 &
JOB=$!
# shellcheck disable=SC2034  # read by assert.sh at exit
ND_BG_PIDS="$JOB"
printf '[nvidia]\ndevices = 2\nname = NVIDIA H200\ngpu_util = 40\nmem_total_mb = 143771\nmem_used_mb = 4096\nproc = %d 1 4096\n' \
  "$JOB" >"$ND_SIM_STATE"
run_nd "$T/ps.json" "$T/ps.err" ps --json --pid "$JOB"
assert_json "$T/ps.json" 'len(d["devices"]) == 2 and all(x["vendor"] == "nvidia" and x["name"] == "NVIDIA H200" for x in d["devices"])' "2 simulated H200s listed"
assert_json "$T/ps.json" 'd["devices"][0]["memory_total_bytes"] == 143771 * 1024 * 1024 and d["devices"][0]["utilization_ratio"] == 0.4' "memory and utilisation from NVML"
assert_json "$T/ps.json" "any(p['pid'] == $JOB and p['verdict'] == 'on-device' and any(x['vendor'] == 'nvidia' and x['index'] == 1 and x['memory_bytes'] == 4096 * 1024 * 1024 for x in p['devices']) for p in d['processes'])" "the listed process holds gpu:1 with 4 GiB"

# An old driver: the process list comes through the oldest NVML call.
printf '[nvidia]\ndevices = 2\nproc = %d 0 512\nfail = nvmlDeviceGetComputeRunningProcesses_v3 13\nfail = nvmlDeviceGetComputeRunningProcesses_v2 13\n' \
  "$JOB" >"$ND_SIM_STATE"
run_nd "$T/old.json" "$T/old.err" ps --json --pid "$JOB"
assert_json "$T/old.json" "any(p['pid'] == $JOB and any(x['index'] == 0 and x['memory_bytes'] == 512 * 1024 * 1024 for x in p['devices']) for p in d['processes'])" "process list through the v1 call on an old driver"

# NVML hangs in the device count: ps still returns, and says where it hung.
printf '[nvidia]\ndevices = 2\nhang = nvmlDeviceGetCount_v2\n' >"$ND_SIM_STATE"
timeout 120 "$ND" ps --json >"$T/hang.json" 2>"$T/hang.err"
rc=$?
if [ "$rc" -ne 124 ]; then pass "ps returns although NVML hangs (exit $rc)"; else fail "ps hung with NVML"; fi
assert_json "$T/hang.json" 'any(f["id"] == "device.nvidia.hung" and any("timed out after" in e["text"] and "nvmlDeviceGetCount_v2" in e["text"] for e in f["evidence"]) for f in d["findings"])' "the hang is a finding naming nvmlDeviceGetCount_v2"

# The driver was upgraded without a reboot: NVML code 18.
printf '[nvidia]\ndevices = 2\nfail = nvmlInit_v2 18\n' >"$ND_SIM_STATE"
run_nd "$T/18.json" "$T/18.err" ps --json
expect_rc 2 "a library/driver mismatch is an error"
assert_json "$T/18.json" 'any(f["category"] == "version-mismatch" and "nvmlInit_v2 returned 18" in f["title"] and "reboot" in " ".join(f["fix"]) for f in d["findings"])' "code 18 is a version-mismatch finding with a reboot fix"

# The CUDA smoke test: Fabric Manager missing on an NVSwitch machine.
printf '[nvidia]\ndevices = 2\n[cuda]\nfail = cuInit 802\n' >"$ND_SIM_STATE"
run_nd "$T/802.json" "$T/802.err" check --level 2 --json
assert_json "$T/802.json" 'any(f["id"] == "device.nvidia.smoke-failed" and "cuInit" in f["title"] and any("802" in e["text"] for e in f["evidence"]) and "nvidia-fabricmanager" in " ".join(f["fix"]) for f in d["findings"])' "cuInit 802 names Fabric Manager"

# Level 3: one GPU behind a much slower (simulated) link is flagged.
printf '[nvidia]\ndevices = 3\nname = NVIDIA H200\nmem_total_mb = 8\n[cuda]\nbandwidth_gbps = 4\n[cuda.device.2]\nbandwidth_gbps = 0.02\n' >"$ND_SIM_STATE"
run_nd "$T/bw.json" "$T/bw.err" check --level 3 --json
assert_json "$T/bw.json" 'not any(f["id"] == "device.nvidia.smoke-failed" for f in d["findings"])' "the level-3 smoke test passes"
assert_json "$T/bw.json" 'any(f["id"] == "device.nvidia.bandwidth-low" and "device 2" in f["title"] for f in d["findings"])' "the slow GPU 2 is flagged"

finish
