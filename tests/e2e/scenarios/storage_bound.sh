#!/usr/bin/env bash
# Starved by storage on a simulated 910B host: the job holds npu:0 at 3%
# while its DataLoader-like worker sleeps reading a slow pipe (16 KiB every
# 0.25 s) and the CPU idles. input-bound, storage form, with the read
# throughput and the waiting worker. Twin: the same job with its NPU at 90%.
# The job is watched from the moment it has imported torch (`watch --pid`
# once it is ready): on a loaded machine the import's busy CPU outlasts the
# scenarios' short warm-up, and that phase is not the one under test.
. "$(dirname "$0")/lib/scenario.sh"

state() {
  sim_910b_host "[ascend.device.0]
aicore_util = $1
hbm_used_mb = 20000"
}
# start_ready OUT: the storage job in the background; JOBPID once it has imported torch.
start_ready() {
  rm -f "$T/ready"
  DEVICE=$ROOT/dev/davinci0 READY=$T/ready "$PY" "$JOB" storage 8 >"$1" 2>&1 &
  JOBPID=$!
  ND_BG_PIDS=$JOBPID
  wait_file "$T/ready" || fail "the job never started"
}

state 3
start_ready "$T/out"
# (The shell reaps the job at once, so watch cannot read its exit status:
# that is watch_exit_status.sh's subject, not this one's.)
run_nd "$T/wout" "$T/err" watch --pid "$JOBPID" --root "$ROOT" "${RUNOPTS[@]}" --json-summary="$T/sum.json"
wait "$JOBPID"
jrc=$?
[ "$jrc" -eq 0 ] && pass "the job ran to its end (exit 0)" || fail "the job exited $jrc"
assert_contains "$T/out" "worker read" "the worker read its data"
finding_is "$T/sum.json" idle.storage-bound input-bound warning
F="[f for f in d['findings'] if f['id'] == 'idle.storage-bound'][0]"
assert_json "$T/sum.json" "any(e['text'].startswith('read throughput: ') for e in ${F}['evidence'])" "the read throughput"
assert_json "$T/sum.json" "any('pipe_read' in e['text'] for e in ${F}['evidence'])" "the worker waiting in a read"
assert_json "$T/sum.json" "any('local NVMe' in x for x in ${F}['fix'])" "fix: faster or local storage"
assert_json "$T/sum.json" "not any(f['id'] in ('idle.input-bound', 'hang.no-progress') for f in d['findings'])" "not the CPU-bound form, not a hang"
assert_contains "$T/err" "npu-doctor: warning: The device waits for data from storage" "live alert"

state 90
start_ready "$T/out2"
run_nd "$T/wout2" "$T/err2" watch --pid "$JOBPID" --root "$ROOT" "${RUNOPTS[@]}" --json-summary="$T/sum2.json"
wait "$JOBPID"
jrc=$?
[ "$jrc" -eq 0 ] && pass "twin: the job ran to its end (exit 0)" || fail "twin: the job exited $jrc"
ND_BG_PIDS=
twin_clean "$T/sum2.json" "$T/err2"
finish
