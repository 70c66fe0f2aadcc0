#!/usr/bin/env bash
# check on a ROCm host fixture (MI300X, ROCm 6.2, torch built for ROCm):
# healthy; a CPU-only torch; HIP_VISIBLE_DEVICES hiding every GPU; a
# container without /dev/kfd and without render nodes; and the device query
# through the simulated librocm_smi64.so at level 2.
# shellcheck source=tests/e2e/lib/assert.sh
. "$(dirname "$0")/lib/assert.sh"

R=$ND_FIXTURES/roots/rocm-mi300
E=$ND_FIXTURES/env
export NPU_DOCTOR_DCMI_LIB="$T/none/libdcmi.so" NPU_DOCTOR_NVML_LIB="$T/none/libnvidia-ml.so.1"
export NPU_DOCTOR_RSMI_LIB="$T/none/librocm_smi64.so"

run_nd "$T/out" "$T/err" check --root "$R" --env-file "$E/rocm-plain.env"
expect_rc 0 "healthy ROCm host"
assert_contains "$T/out" "✓ ROCm 6.2.0-66 at /opt/rocm-6.2.0"
assert_contains "$T/out" "✓ /dev/kfd, 4 render nodes"
assert_contains "$T/out" "✓ torch 2.5.1+rocm6.2 built for ROCm (HIP 6.2.41133-dd7f95766)"
assert_contains "$T/out" "torch 2.5.1+rocm6.2 (rocm6.2 build)" "the Python section names the wheel's build"
run_nd "$T/j" "$T/err" check --json --root "$R" --env-file "$E/rocm-plain.env"
assert_json "$T/j" 'd["facts"]["rocm"]["installs"] == [{"path": "/opt/rocm-6.2.0", "version": "6.2.0-66"}] and d["facts"]["rocm"]["kfd"] and d["facts"]["rocm"]["render_nodes"] == 4' "facts: the install and the nodes"
assert_json "$T/j" 'd["facts"]["rocm"]["torch_hip"] == "6.2.41133-dd7f95766" and not any(f["id"].startswith("rocm.") for f in d["findings"])' "facts: torch.version.hip; no rocm finding"

# A CPU-only torch first on PYTHONPATH.
run_nd "$T/j" "$T/err" check --json --root "$R" --env-file "$E/rocm-cpu-torch.env"
expect_rc 2 "CPU-only torch on a ROCm host"
assert_json "$T/j" 'any(f["id"] == "rocm.torch-not-rocm" and f["category"] == "cpu-fallback" and f["severity"] == "error" and any("whl/rocm6.2" in x for x in f["fix"]) for f in d["findings"])' "torch not built for ROCm: the ROCm 6.2 wheel is the fix"

# HIP_VISIBLE_DEVICES="" hides every GPU; ROCR_VISIBLE_DEVICES is shown.
run_nd "$T/out" "$T/err" check --root "$R" --env-file "$E/rocm-hidden.env"
expect_rc 2 "empty HIP_VISIBLE_DEVICES"
assert_contains "$T/out" 'HIP_VISIBLE_DEVICES="" hides every ROCm GPU'
assert_contains "$T/out" '· ROCR_VISIBLE_DEVICES="0,1"'

# A container started without --device /dev/kfd, then without /dev/dri.
cp -a "$R" "$T/nokfd"
rm "$T/nokfd/dev/kfd"
run_nd "$T/j" "$T/err" check --json --root "$T/nokfd" --env-file "$E/rocm-plain.env"
expect_rc 2 "no /dev/kfd"
assert_json "$T/j" 'any(f["id"] == "rocm.kfd-missing" and any("--device /dev/kfd" in x for x in f["fix"]) for f in d["findings"])' "kfd missing: pass the device in"
cp -a "$R" "$T/nodri"
rm "$T/nodri"/dev/dri/renderD*
run_nd "$T/j" "$T/err" check --json --root "$T/nodri" --env-file "$E/rocm-plain.env"
expect_rc 2 "no render node"
assert_json "$T/j" 'any(f["id"] == "rocm.render-missing" for f in d["findings"]) and not any(f["id"] == "rocm.kfd-missing" for f in d["findings"])' "render nodes missing, kfd present"

# Not a ROCm host: no ROCm section at all.
run_nd "$T/out" "$T/err" check --root "$ND_FIXTURES/roots/cuda-host" --env-file "$E/cuda-plain.env"
assert_not_contains "$T/out" "ROCm 6" "a CUDA host has no ROCm lines"
assert_not_contains "$T/out" "/dev/kfd" "a CUDA host has no /dev/kfd line"

# Level 2: the devices through the simulated ROCm SMI.
export NPU_DOCTOR_RSMI_LIB="$ND_SIM/librocm_smi64.so" ND_SIM_STATE="$T/state.ini"
printf '[rocm]\ndevices = 4\nname = AMD Instinct MI300X\ndriver_version = 6.8.5\n' >"$T/state.ini"
run_nd "$T/j" "$T/err" check --level 2 --json --root "$R" --env-file "$E/rocm-plain.env"
assert_json "$T/j" 'any(v["vendor"] == "rocm" and v["status"] == "ok" and len(v["devices"]) == 4 and v["driver_version"] == "6.8.5" for v in d["facts"]["devices"]["vendors"])' "level 2: 4 MI300X through ROCm SMI"
printf '[rocm]\ndevices = 4\nfail = rsmi_init 4\n' >"$T/state.ini"
run_nd "$T/j" "$T/err" check --level 2 --json --root "$R" --env-file "$E/rocm-plain.env"
expect_rc 2 "level 2: ROCm SMI refuses"
assert_json "$T/j" 'any(f["id"] == "device.rocm.permission-denied" and any("render,video" in x for x in f["fix"]) for f in d["findings"])' "level 2: rsmi_init 4 is a permission finding"
finish
