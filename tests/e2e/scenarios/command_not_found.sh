#!/usr/bin/env bash
# A launcher script that calls a command that does not exist (exit 127), and
# a python3 pointed at a missing script (exit 2): what each status means, the
# line the job printed. Twin: the launcher calling the real job.
. "$(dirname "$0")/lib/scenario.sh"
# The twin is a healthy job: on its NPU, and the NPU busy.
sim_910b_host '[ascend.device.0]
aicore_util = 85
hbm_used_mb = 20000'
cat >"$T/launch.sh" <<SH
#!/usr/bin/env bash
if [ "\${TWIN:-0}" = 1 ]; then exec $PY $JOB train 1; fi
$PY -c 'import torch' && trainx --epochs 3
SH
chmod +x "$T/launch.sh"

run_nd "$T/out" "$T/err" run --root "$ROOT" "${RUNOPTS[@]}" --json-summary="$T/sum.json" -- "$T/launch.sh"
expect_rc 127 "the job's own status"
finding_is "$T/sum.json" exit.not-found config error
assert_json "$T/sum.json" "any('trainx' in e['text'] for f in d['findings'] if f['id'] == 'exit.not-found' for e in f['evidence'])" "the shell's line names the command"

run_nd "$T/out" "$T/err" run --root "$ROOT" "${RUNOPTS[@]}" --json-summary="$T/sum1.json" -- "$PY" "$T/no-such-train.py"
expect_rc 2 "a missing script: python's status 2"
finding_is "$T/sum1.json" exit.failed config error
assert_json "$T/sum1.json" "any(\"can't open file\" in e['text'] for f in d['findings'] for e in f['evidence'])" "python's line about the missing file"
assert_not_contains "$T/err" "no problems found"

DEVICE=$ROOT/dev/davinci0 TWIN=1 run_nd "$T/out2" "$T/err2" run --root "$ROOT" "${RUNOPTS[@]}" \
  --json-summary="$T/sum2.json" -- "$T/launch.sh"
expect_rc 0 "twin: exit 0"
twin_clean "$T/sum2.json" "$T/err2"
finish
