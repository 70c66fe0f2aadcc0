#!/usr/bin/env bash
# `npu-doctor run` on a data-starved job: it holds the simulated NPU, whose
# utilisation is 3%, while two worker processes burn CPU. input-bound, with
# the workers as evidence; an operator falling back to the CPU in the output
# is named as the likely cause and reported at once.
. "$(dirname "$0")/lib/assert.sh"

ROOT=${ND_FIXTURES:?}/roots/ascend-910b-cann80
sim_910b_host '[ascend.device.0]
aicore_util = 3
hbm_used_mb = 20000'
cat >"$T/job.sh" <<SH
#!/usr/bin/env bash
echo "[W compiler_depend.ts:51] Warning: CAST_OP will fall back to run on the CPU" >&2
exec "$ND_FIXTURES/jobs/holds_device.sh" "$ROOT" 10 2
SH
chmod +x "$T/job.sh"

run_nd "$T/out" "$T/err" run --root "$ROOT" --interval 0.5 --window 3 --warmup 2 --json-summary="$T/sum.json" -- "$T/job.sh"
expect_rc 0 "the job's status"
assert_contains "$T/err" "npu-doctor: warning: Operator CAST_OP runs on the CPU instead of the device" "the log line is explained live"
assert_contains "$T/err" "npu-doctor: warning: The device waits for data" "live input-bound alert"
F="[f for f in d['findings'] if f['category'] == 'input-bound']"
assert_json "$T/sum.json" "len($F) == 1 and ${F}[0]['severity'] == 'warning'" "one input-bound warning"
assert_json "$T/sum.json" "${F}[0]['at_s'] >= 5" "not before warmup + window"
assert_json "$T/sum.json" "any('3% on average' in e['text'] for e in ${F}[0]['evidence'])" "evidence: utilisation"
assert_json "$T/sum.json" "any('worker processes' in e['text'] for e in ${F}[0]['evidence'])" "evidence: the workers"
assert_json "$T/sum.json" "'fall back to run on the CPU' in ${F}[0]['cause']" "the op fallback named as the cause"
assert_json "$T/sum.json" "any('num_workers' in x for x in ${F}[0]['fix'])"
assert_json "$T/sum.json" "not any(f['category'] == 'cpu-fallback' for f in d['findings'])" "no cpu-fallback: it holds the device"
assert_json "$T/sum.json" "any(f['category'] == 'unsupported-op' and f['evidence'][0]['file'] == 'stderr' for f in d['findings'])"
finish
