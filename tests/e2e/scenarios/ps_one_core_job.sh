#!/usr/bin/env bash
# `ps` on an idle 8x910B host (every NPU holds 2.9 GiB of baseline memory)
# next to a single-threaded torch job computing on the CPU: the warning must
# hold still from one run to the next (it once needed >= 1.0 cores, and a job
# at 0.99 slipped through), and its fix names `check --env-from PID`.
# Twin: the vendor list names the job on npu:3: no warning.
. "$(dirname "$0")/lib/scenario.sh"
sim_910b_host "$(for d in 0 1 2 3 4 5 6 7; do printf '[ascend.device.%d]\nhbm_used_mb = 2900\n' $d; done)"

READY=$T/ready "$PY" "$JOB" train 240 >/dev/null &
PID=$!
ND_BG_PIDS=$PID
wait_file "$T/ready" || fail "the job never started"
sleep 1
# --pid: other torch processes on a shared test machine must not change the story.
for i in 1 2 3; do
  run_nd "$T/out$i" "$T/err$i" ps --pid "$PID" --interval 2 --json
  expect_rc 1 "run $i: ps warns"
  assert_json "$T/out$i" "[f['id'] for f in d['findings']] == ['ps.devices-idle-cpu-job'] and d['findings'][0]['category'] == 'cpu-fallback'" "run $i: the idle-devices finding"
  assert_json "$T/out$i" "any('npu-doctor check --env-from $PID' in x for x in d['findings'][0]['fix'])" "run $i: the fix names check --env-from"
done
assert_json "$T/out1" "all(x['memory_used_bytes'] == 2900 << 20 for x in d['devices'])" "the baseline memory is there"

# The twin: the same job on npu:3, as the vendor list says.
{ cat "$T/state.ini"; printf '[ascend]\nproc = %d 3 4096\n[ascend.device.3]\naicore_util = 70\n' "$PID"; } >"$T/s2" && mv "$T/s2" "$T/state.ini"
run_nd "$T/out4" "$T/err4" ps --pid "$PID" --interval 1 --json
expect_rc 0 "twin: no warning"
assert_json "$T/out4" "d['findings'] == []" "twin: no finding"
assert_json "$T/out4" "[p['verdict'] for p in d['processes'] if p['pid'] == $PID] == ['on-device']"
kill "$PID"; wait "$PID" 2>/dev/null
ND_BG_PIDS=
finish
