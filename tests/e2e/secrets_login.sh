#!/usr/bin/env bash
# Registry logins and short spaced secrets: `docker login --password-stdin`
# takes its password on stdin, which run passes to the job and never
# reads, so no output of ours (stderr, --json-summary, --report files)
# may hold it; `docker login -p X`, `--password X` and `--password=X` put
# it in argv, which the report, a watched process's view (watch, ps,
# check, snapshot --env-from) show redacted; "HF_TOKEN x" with one blank
# and a short value, on a line a finding quotes, is redacted in the
# report and in explain. The job's own output passes through untouched.
. "$(dirname "$0")/lib/assert.sh"
. "$(dirname "$0")/lib/secrets.sh"
export NO_COLOR=1 NPU_DOCTOR_REDACT_KEY=login
OOM='torch.cuda.OutOfMemoryError: CUDA out of memory.'
cat >"$T/needles" <<'EOF2'
SqStdinPw1
SqArgP2
SqArgLong3
SqArgEq4
SqSpaced5
SqSpaced6
EOF2
SECRETS_NEEDLES=$T/needles
mkdir -p "$T/bin"
# A stand-in docker: reads the password from stdin with --password-stdin.
cat >"$T/bin/docker" <<'EOF2'
#!/bin/sh
for a in "$@"; do [ "$a" = --password-stdin ] && read -r pw && echo "read ${#pw} bytes"; done
echo "Login Succeeded"
EOF2
chmod +x "$T/bin/docker"
cat >"$T/job.sh" <<EOF2
#!/bin/sh
"$T/bin/docker" login --password-stdin -u me reg.example
"$T/bin/docker" login -p SqArgP2 reg.example
"$T/bin/docker" login -u me --password SqArgLong3 reg.example
"$T/bin/docker" login --password=SqArgEq4 reg.example
echo "$OOM HF_TOKEN SqSpaced5 GITHUB_TOKEN SqSpaced6x"
exit 1
EOF2
chmod +x "$T/job.sh"
mkdir -p "$T/rep"
printf 'SqStdinPw1\n' | "$ND" run --no-devices --report "$T/rep" --json-summary="$T/sum.json" -- \
  "$T/job.sh" docker login -p SqArgP2 --password SqArgLong3 --password=SqArgEq4 >"$T/run.out" 2>"$T/run.err"
rc=$?
expect_rc 1 "run keeps the job's status"
assert_contains "$T/run.out" "read 10 bytes" "the job read its stdin"
assert_contains "$T/run.out" "HF_TOKEN SqSpaced5" "the job's own output passes through untouched"
assert_contains "$T/rep/report.json" "HF_TOKEN <redacted:" "the report quotes the line, redacted"
assert_contains "$T/rep/report.json" "docker" "the report holds the job's argv"
secrets_run_outputs "$T/run.err" "$T/sum.json" "$T/rep"

# A watched login whose password is in argv.
cat >"$T/victim.sh" <<'EOF2'
#!/bin/sh
sleep 60
EOF2
chmod +x "$T/victim.sh"
"$T/victim.sh" docker login -p SqArgP2 --password SqArgLong3 --password=SqArgEq4 reg.example &
victim=$!
ND_BG_PIDS="$victim"
sleep 0.3
secrets_process_sweep "$victim" "victim.sh"
kill "$victim" 2>/dev/null
wait "$victim" 2>/dev/null
ND_BG_PIDS=""

# The same lines in a log explain reads.
printf '%s HF_TOKEN SqSpaced5 GITHUB_TOKEN SqSpaced6x docker login -p SqArgP2 --password SqArgLong3 --password=SqArgEq4\n' \
  "$OOM" >"$T/train.log"
run_nd "$T/o" "$T/e" explain --all --json "$T/train.log"
secrets_scan "explain --all --json" "$T/o" "$T/e"
run_nd "$T/o" "$T/e" explain --all "$T/train.log"
assert_contains "$T/o" "HF_TOKEN <redacted:" "explain quotes the line, redacted"
secrets_scan "explain --all" "$T/o" "$T/e"

finish
