#!/usr/bin/env bash
# Secrets dressed to slip past the scrubbers, planted in log text, job
# output, argv and env values, and searched for in every output: explain
# (text, JSON, .gz), run (stderr, --json-summary, report files, metrics),
# watch, ps, check (--report-issue), snapshot, diff. The dress: zero-width
# characters and a BOM inside names and tokens, no-break spaces where a
# blank belongs, escaped quotes inside quoted tool values, tool options in
# their other spellings (mysql -p X, docker login -pX, curl -u "u:p w"),
# tokens as a URL's user part, and a login's secret as its own argv word.
. "$(dirname "$0")/lib/assert.sh"
. "$(dirname "$0")/lib/secrets.sh"
export NO_COLOR=1 NPU_DOCTOR_REDACT_KEY=evasion NPU_DOCTOR_DCMI_LIB=$T/none NPU_DOCTOR_NVML_LIB=$T/none
OOM='torch.cuda.OutOfMemoryError: CUDA out of memory.'
ZW=$'\xe2\x80\x8b' BOM=$'\xef\xbb\xbf' NB=$'\xc2\xa0' WJ=$'\xe2\x81\xa0'

seq 1 22 | sed 's/^/SyEv/; s/$/q/' >"$T/needles"
SECRETS_NEEDLES=$T/needles
cat >"$T/forms.txt" <<EOF
PASS${BOM}WORD=SyEv1q0value
pass${ZW}word: SyEv2q0value
--api${ZW}key SyEv3q0value
--token${NB}SyEv4q0value
Authorization:${NB}Bearer${NB}SyEv5q0valuevalue
hf_${ZW}SyEv6qabcdefghijklmnopqrstuvwxyz
HF${WJ}TOKEN=SyEv7q0value
sshpass -p "ab\\"SyEv8q0cd" ssh host
mysql -h db -p SyEv9q0pass
docker login -pSyEv10q0pw registry.example
curl -u "alice:SyEv11q0 pw" https://example.com/up
git clone https://SyEv12q0tok@github.com/org/repo
https://SyEv13q0tok:x-oauth-basic@github.com/org/repo
WANDB_API_KEY SyEv14qValueValue0123
password=SyEv15q0a${NB}SyEv15q0b
EOF
secrets_explain_each "$T/forms.txt" ' '

# ---- run: job output, argv (a login's secret as its own word), environment
{ cat "$T/forms.txt"; echo "$OOM"; } >"$T/train.log"
printf '#!/bin/sh\ncat "%s"\nexit 1\n' "$T/train.log" >"$T/job.sh"
chmod +x "$T/job.sh"
mkdir -p "$T/rep"
env "PASS${BOM}WORD=SyEv16q0val" "$ND" run --no-devices --report "$T/rep" --json-summary="$T/sum.json" \
  --metrics-file "$T/m.prom" -- "$T/job.sh" docker login -p SyEv17q0pw wandb login SyEv18q0valuevalue \
  mysql -p SyEv19q0pw "https://SyEv20q0tok@github.com/x" >"$T/run.out" 2>"$T/run.err"
rc=$?
expect_rc 1 "run keeps the job's status"
secrets_run_outputs "$T/run.err" "$T/sum.json" "$T/rep" "$T/m.prom"

# ---- a watched process
printf '#!/bin/sh\nsleep 60\n' >"$T/victim.sh"
chmod +x "$T/victim.sh"
env "HF${ZW}TOKEN=SyEv21q0val" "$T/victim.sh" docker login -p SyEv17q0pw mysql -p SyEv19q0pw &
victim=$!
ND_BG_PIDS="$victim"
sleep 0.3
secrets_process_sweep "$victim" "victim.sh"
kill "$victim" 2>/dev/null
wait "$victim" 2>/dev/null
ND_BG_PIDS=""

# ---- env files and diff
{
  echo "PATH=/usr/bin:/bin"
  echo "PASS${BOM}WORD=SyEv16q0val"
  echo "LAUNCH=docker login -pSyEv10q0pw registry.example"
  echo "DB_CMD=mysql -h db -p SyEv9q0pass"
  echo "REPO=https://SyEv12q0tok@github.com/org/repo"
  echo "HF_TOKEN=SyEv22q0${NB}tail"
} >"$T/job.env"
secrets_env_file_sweep "$T/job.env"
secrets_diff_foreign "$T/forms.txt"
finish
