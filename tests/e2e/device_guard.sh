#!/usr/bin/env bash
# e2e: the device layer's guard, through the built binary and the simulated
# libdcmi.so: a hanging or crashing vendor library and a refusing driver
# become findings, never a hang or crash of npu-doctor; a healthy simulated
# 8x910B host is listed.
. "$(dirname "$0")/lib/assert.sh"

export NPU_DOCTOR_DCMI_LIB="$ND_SIM/libdcmi.so"
export NPU_DOCTOR_NVML_LIB="$T/none/libnvidia-ml.so.1"   # keep a real NVIDIA driver out of it
export ND_SIM_STATE="$T/state.ini"

printf '[ascend]\ndevices = 8\nchip_name = 910B3\nhbm_total_mb = 65536\nhbm_used_mb = 1024\n[ascend.device.3]\naicore_util = 85\n' >"$ND_SIM_STATE"
run_nd "$T/ok.json" "$T/ok.err" ps --json
assert_json "$T/ok.json" 'len(d["devices"]) == 8 and all(x["name"] == "910B3" for x in d["devices"])' "8 simulated NPUs listed"
assert_json "$T/ok.json" '[x["utilization_ratio"] for x in d["devices"]][3] == 0.85' "AI Core utilisation of npu:3"
assert_json "$T/ok.json" 'd["devices"][0]["memory_total_bytes"] == 65536 * 1024 * 1024' "HBM total in bytes (DCMI reports MB)"
assert_json "$T/ok.json" 'not any(f["id"].startswith("device.ascend") for f in d["findings"])' "a healthy host gives no device finding"

printf '[ascend]\ndevices = 8\nhang = dcmi_init\n' >"$ND_SIM_STATE"
timeout 120 "$ND" ps --json >"$T/hang.json" 2>"$T/hang.err"
rc=$?
if [ "$rc" -ne 124 ]; then pass "ps returns although dcmi_init hangs (exit $rc)"; else fail "ps hung with dcmi_init"; fi
assert_json "$T/hang.json" 'any(f["id"] == "device.ascend.hung" and any("timed out after" in e["text"] and "in dcmi_init" in e["text"] for e in f["evidence"]) for f in d["findings"])' "the hang is a finding naming dcmi_init"

printf '[ascend]\ndevices = 8\ncrash = dcmi_get_device_resource_info\n' >"$ND_SIM_STATE"
run_nd "$T/crash.json" "$T/crash.err" ps --json
assert_json "$T/crash.json" 'any(f["id"] == "device.ascend.crashed" and f["category"] == "device-fault" and any("crashed with SIGSEGV in dcmi_get_device_resource_info" in e["text"] for e in f["evidence"]) for f in d["findings"])' "the crash is a finding naming the call"

printf '[ascend]\ndevices = 8\nfail = dcmi_init -8005\n' >"$ND_SIM_STATE"
run_nd "$T/8005.json" "$T/8005.err" ps --json
expect_rc 2 "a refusing driver is an error"
assert_json "$T/8005.json" 'any(f["id"] == "device.ascend.driver-inaccessible" and "dcmi_init returned -8005" in f["title"] and "reboot" in " ".join(f["fix"]) for f in d["findings"])' "-8005 explained with a fix"

finish
