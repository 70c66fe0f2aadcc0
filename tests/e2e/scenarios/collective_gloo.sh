#!/usr/bin/env bash
# A collective wait: two gloo ranks on a host with no accelerator, rank 1
# never calls all_reduce, rank 0 waits in it. hang, with distributed hints
# (the job sets RANK/WORLD_SIZE/MASTER_ADDR) but no HCCL or NCCL ones: no
# such device here. Twin: both ranks all_reduce and end.
. "$(dirname "$0")/lib/scenario.sh"
# No vendor library, no device node: a plain CPU host.
export NPU_DOCTOR_DCMI_LIB=$T/none NPU_DOCTOR_NVML_LIB=$T/none
mkdir -p "$T/root"
PORT=$((29500 + RANDOM % 2000))
cat >"$T/launch.sh" <<SH
#!/usr/bin/env bash
export WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=$PORT
( export RANK=0 LOCAL_RANK=0 READY=$T/ready0; exec $PY $JOB gloo 60 ) &
( export RANK=1 LOCAL_RANK=1 READY=$T/ready1; exec $PY $JOB gloo 60 ) &
wait
SH
chmod +x "$T/launch.sh"

SKIP_RANK=1 run_nd "$T/out" "$T/err" run --root "$T/root" "${RUNOPTS[@]}" --hang-after 3 --json-summary="$T/sum.json" \
  -- "$T/launch.sh" &
RUN=$!
if wait_text "$T/err" "npu-doctor: warning: The job looks stuck"; then pass "live hang alert"; else fail "no hang alert"; fi
# End the two ranks by their pids (each wrote it when it started).
kill -TERM "$(cat "$T/ready0" 2>/dev/null || echo 0)" "$(cat "$T/ready1" 2>/dev/null || echo 0)" 2>/dev/null
wait "$RUN"
rm -f "$T/ready0" "$T/ready1"
finding_is "$T/sum.json" hang.no-progress hang warning
F="[f for f in d['findings'] if f['id'] == 'hang.no-progress'][0]"
assert_json "$T/sum.json" "'rank' in ${F}['cause'] and any('TORCH_DISTRIBUTED_DEBUG' in x for x in ${F}['fix'])" "distributed hints"
assert_json "$T/sum.json" "not any('HCCL' in x or 'NCCL' in x or 'plog' in x for x in ${F}['fix'])" "no vendor hints without that vendor"

PORT=$((PORT + 1)); sed -i "s/MASTER_PORT=[0-9]*/MASTER_PORT=$PORT/" "$T/launch.sh"
run_nd "$T/out2" "$T/err2" run --root "$T/root" "${RUNOPTS[@]}" --hang-after 3 --json-summary="$T/sum2.json" -- "$T/launch.sh"
expect_rc 0 "twin: exit 0"
assert_contains "$T/out2" "all_reduce: [2.0, 2.0, 2.0, 2.0]" "twin: the collective completed"
twin_clean "$T/sum2.json" "$T/err2"
finish
