#!/usr/bin/env bash
# When the monitor fails, the job goes on: the simulated vendor library hangs
# (then crashes) in the utilisation call mid-run. npu-doctor says once that
# device sampling stopped, and the job's output and exit status are intact.
. "$(dirname "$0")/lib/assert.sh"

ROOT=${ND_FIXTURES:?}/roots/ascend-910b-cann80
export NPU_DOCTOR_DCMI_LIB=${ND_SIM:?}/libdcmi.so NPU_DOCTOR_NVML_LIB=$T/none ND_SIM_STATE=$T/state.ini
good='[ascend]
devices = 8
chip_name = 910B3
hbm_total_mb = 65536'
for fault in hang crash; do
  printf '%s\n' "$good" >"$T/state.ini"
  # The job breaks the vendor library after its first second, then keeps talking.
  cat >"$T/job.sh" <<SH
#!/usr/bin/env bash
sleep 1
printf '%s\n$fault = dcmi_get_device_utilization_rate\n' "$good" >"$T/state.new" && mv "$T/state.new" "$T/state.ini"
for i in \$(seq 8); do echo "step \$i"; sleep 1; done
exit 7
SH
  chmod +x "$T/job.sh"
  run_nd "$T/out" "$T/err" run --interval 0.5 --root "$ROOT" --json-summary="$T/sum.json" -- "$T/job.sh"
  expect_rc 7 "$fault in the vendor library: the job's status"
  assert_contains "$T/out" "step 8" "$fault: the job's output is complete"
  assert_contains "$T/err" "npu-doctor: warning: Device sampling stopped; the job goes on unwatched by ascend" "$fault: said once"
  # The job's exit 7 is a failure of its own (exit.failed); nothing else beside the sampling note.
  assert_json "$T/sum.json" "[f['id'] for f in d['findings']] == ['monitor.device-sampling-failed', 'exit.failed']"
  assert_json "$T/sum.json" "d['job']['exit_status'] == 7"
done
finish
