#!/usr/bin/env bash
# e2e: the ROCm device layer through the built binary and the simulated
# librocm_smi64.so: `ps` on an MI300X host and on a Hygon DCU host lists the
# devices and the process ROCm SMI names; a hanging, crashing or failing
# library becomes a finding naming the call, never a hang of npu-doctor.
# shellcheck source=tests/e2e/lib/assert.sh
. "$(dirname "$0")/lib/assert.sh"

export NPU_DOCTOR_RSMI_LIB="$ND_SIM/librocm_smi64.so"
export NPU_DOCTOR_DCMI_LIB="$T/none/libdcmi.so" NPU_DOCTOR_NVML_LIB="$T/none/libnvidia-ml.so.1"
export ND_SIM_STATE="$T/state.ini"

sleep 120 &
JOB=$!
# shellcheck disable=SC2034  # read by assert.sh at exit
ND_BG_PIDS="$JOB"

# An MI300X host: the job holds 6 GiB on GPU 2 and 2 GiB on GPU 5.
printf '[rocm]\ndevices = 8\nname = AMD Instinct MI300X\ndriver_version = 6.8.5\nbusy_pct = 40\nvram_total_mb = 196592\nvram_used_mb = 8192\nproc = %d 2 6144\nproc = %d 5 2048\n' \
  "$JOB" "$JOB" >"$ND_SIM_STATE"
run_nd "$T/ps.json" "$T/ps.err" ps --json --pid "$JOB"
expect_rc 0 "ps on a healthy ROCm host"
assert_json "$T/ps.json" 'len(d["devices"]) == 8 and all(x["vendor"] == "rocm" and x["name"] == "AMD Instinct MI300X" for x in d["devices"])' "8 simulated MI300X listed"
assert_json "$T/ps.json" 'd["devices"][0]["memory_total_bytes"] == 196592 * 1024 * 1024 and d["devices"][0]["memory_used_bytes"] == 8192 * 1024 * 1024 and d["devices"][0]["utilization_ratio"] == 0.4' "VRAM and busy percent from ROCm SMI"
assert_json "$T/ps.json" "[p for p in d['processes'] if p['pid'] == $JOB][0]['verdict'] == 'on-device'" "the listed process is on the device"
assert_json "$T/ps.json" "sorted((x['index'], x['memory_bytes']) for x in [p for p in d['processes'] if p['pid'] == $JOB][0]['devices']) == [(2, 6144 << 20), (5, 2048 << 20)]" "per-device VRAM of the process"
run_nd "$T/ps.txt" "$T/ps.err" ps --pid "$JOB"
assert_contains "$T/ps.txt" "gpu:2,5" "the table names gpu:2,5"

# A Hygon DCU host: same library family, the DCU's own name.
printf '[rocm]\ndevices = 4\nname = K100_AI\nbusy_pct = 0\nvram_total_mb = 65520\n' >"$ND_SIM_STATE"
run_nd "$T/dcu.json" "$T/dcu.err" ps --json
assert_json "$T/dcu.json" 'len(d["devices"]) == 4 and d["devices"][3]["name"] == "K100_AI" and d["devices"][3]["vendor"] == "rocm"' "4 Hygon DCUs listed"

# No amdgpu driver: rsmi_init returns INIT_ERROR (8).
printf '[rocm]\ndevices = 2\nfail = rsmi_init 8\n' >"$ND_SIM_STATE"
run_nd "$T/init.json" "$T/init.err" ps --json
expect_rc 2 "a library that fails is an error"
assert_json "$T/init.json" 'any(f["id"] == "device.rocm.driver-not-loaded" and "rsmi_init returned 8" in f["title"] and any("modprobe amdgpu" in x for x in f["fix"]) for f in d["findings"])' "rsmi_init 8 names the amdgpu driver"

# The library hangs in the busy-percent call: ps still returns and says where.
printf '[rocm]\ndevices = 2\nhang = rsmi_dev_busy_percent_get\n' >"$ND_SIM_STATE"
timeout 120 "$ND" ps --json >"$T/hang.json" 2>"$T/hang.err"
rc=$?
if [ "$rc" -ne 124 ]; then pass "ps returns although ROCm SMI hangs (exit $rc)"; else fail "ps hung with ROCm SMI"; fi
assert_json "$T/hang.json" 'any(f["id"] == "device.rocm.hung" and any("rsmi_dev_busy_percent_get" in e["text"] for e in f["evidence"]) and any("rocm-smi" in x for x in f["fix"]) for f in d["findings"])' "the hang names rsmi_dev_busy_percent_get"

# A crash in the process list: a finding, not a crash of ours.
printf '[rocm]\ndevices = 2\ncrash = rsmi_compute_process_info_get\n' >"$ND_SIM_STATE"
run_nd "$T/crash.json" "$T/crash.err" ps --json
assert_json "$T/crash.json" 'any(f["id"] == "device.rocm.crashed" and "rsmi_compute_process_info_get" in f["title"] for f in d["findings"])' "the crash names rsmi_compute_process_info_get"

# One device's memory call fails: the others still count.
printf '[rocm]\ndevices = 2\n[rocm.device.1]\nfail = rsmi_dev_memory_usage_get 3\n' >"$ND_SIM_STATE"
run_nd "$T/part.json" "$T/part.err" ps --json
assert_json "$T/part.json" 'len(d["devices"]) == 2 and d["devices"][0]["memory_total_bytes"] is not None and d["devices"][1]["memory_used_bytes"] is None' "device 1's memory unknown, device 0's known"
finish
