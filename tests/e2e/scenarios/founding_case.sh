#!/usr/bin/env bash
# The founding case, on both vendors: a torch job whose environment cannot
# reach the device trains on the CPU while the devices idle. Ascend 910B:
# the CANN variables are missing; NVIDIA H200: CUDA_VISIBLE_DEVICES hides
# the GPUs (and this torch has no CUDA). cpu-fallback error at the window.
# Twins: the same job on its device.
. "$(dirname "$0")/lib/scenario.sh"

sim_910b_host '[ascend.device.0]
aicore_util = 85
hbm_used_mb = 20000'
run_nd "$T/out" "$T/err" run --root "$ROOT" "${RUNOPTS[@]}" --json-summary="$T/sum.json" -- "$PY" "$JOB" train 6
expect_rc 0 "910B: the job's own status"
finding_is "$T/sum.json" fallback.cpu-fallback cpu-fallback error
assert_json "$T/sum.json" "any(x.startswith('source ') and 'set_env.sh' in x for f in d['findings'] for x in f['fix'])" "910B: the source line"
DEVICE=$ROOT/dev/davinci0 run_nd "$T/out2" "$T/err2" run --root "$ROOT" "${RUNOPTS[@]}" --json-summary="$T/sum2.json" \
  -- "$PY" "$JOB" train 6
expect_rc 0 "910B twin: exit 0"
twin_clean "$T/sum2.json" "$T/err2"

# An H200 host: two GPUs through the simulated NVML; the CUDA smoke test is not needed.
CROOT=$ND_FIXTURES/roots/cuda-host
export NPU_DOCTOR_NVML_LIB=$ND_SIM/libnvidia-ml.so.1 NPU_DOCTOR_DCMI_LIB=$T/none
printf '[nvidia]\ndevices = 2\nname = NVIDIA H200\ngpu_util = 0\nmem_total_mb = 143771\nmem_used_mb = 0\n' >"$T/state.ini"
CUDA_VISIBLE_DEVICES= run_nd "$T/out3" "$T/err3" run --root "$CROOT" "${RUNOPTS[@]}" --json-summary="$T/sum3.json" \
  -- "$PY" "$JOB" train 6
expect_rc 0 "H200: the job's own status"
finding_is "$T/sum3.json" fallback.cpu-fallback cpu-fallback error
assert_json "$T/sum3.json" "any('NVIDIA GPU' in f['title'] for f in d['findings'] if f['id'] == 'fallback.cpu-fallback')" "H200: the GPU wording"
assert_json "$T/sum3.json" "any('CUDA_VISIBLE_DEVICES' in e['text'] for f in d['findings'] for e in f['evidence'])" "H200: the hidden GPUs are the reason"
printf '[nvidia]\ndevices = 2\nname = NVIDIA H200\ngpu_util = 85\nmem_total_mb = 143771\nmem_used_mb = 30000\n' >"$T/state.ini"
DEVICE=$CROOT/dev/nvidia0 run_nd "$T/out4" "$T/err4" run --root "$CROOT" "${RUNOPTS[@]}" --json-summary="$T/sum4.json" \
  -- "$PY" "$JOB" train 6
expect_rc 0 "H200 twin: exit 0"
twin_clean "$T/sum4.json" "$T/err4"
finish
