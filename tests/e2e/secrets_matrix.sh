#!/usr/bin/env bash
# The planted-secrets matrix: every secret form (token shapes of Hugging
# Face, OpenAI, GitHub, AWS, Slack and GCP, JWTs, bearer and basic headers,
# URL passwords, .netrc lines, PEM keys over several lines, curl -u, options
# split over two argv words, PGPASSWORD-like variables, a bearer token in an
# OTEL header variable) is planted where each command reads: log text, job
# output, argv, the environment of the job and of a watched process, env
# files, snapshots from elsewhere. Every output path (stdout, stderr, JSON,
# report files, metrics, issue reports) is then searched for every planted
# value. The job's own output passes through untouched by design, so run's
# stdout is not searched.
. "$(dirname "$0")/lib/assert.sh"
export NO_COLOR=1 NPU_DOCTOR_REDACT_KEY=matrix
OOM='torch.cuda.OutOfMemoryError: CUDA out of memory.'

# name=value pairs: the value after "=" is what must never come out.
SECRETS=(
  hf=hf_MxHfTok0123456789abcdefghijklmnop
  openai=sk-proj-MxOpenAi0123456789abcdefghij
  ghp=ghp_MxGithub0123456789abcdefghijklmnop
  ghpat=github_pat_11MxPat0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMN
  akia=AKIAMXAWSKEY01234567
  awssecret=MxAwsSecret/K7MDENG/bPxRfiCYEXAMPLE
  gcp=MxGcpKeyBodyLine0AAAABBBBCCCCDDDDEEEEFFFFGGGGHHHHIIIIJJJJKKKKLLLL1
  slack=xoxs-1234567890-MxSlackTokenAbcdef
  jwtsig=MxJwtSignature0123abcdef
  bearer=MxBearerToken0123456789
  basic=TXhCYXNpY0NyZWRzMDEyMw==
  urlpw=MxUrlPassw0rd
  pg=MxPgPassword01
  mlflow=MxMlflowPass02
  wandb=MxWandbKey0123456789abcdef
  netrc=MxNetrcPass03
  pem=MxPemBodyLine0AAAABBBBCCCCDDDDEEEEFFFFGGGGHHHHIIIIJJJJKKKKLLLLMMMM1
  curl=MxCurlPass04
  argpw=MxArgvPassword05
  argtok=MxArgvToken06
  otel=MxOtelBearer0123456789
  gitok=MxGitUserToken0123456789abc
)
val() { local p; for p in "${SECRETS[@]}"; do [ "${p%%=*}" = "$1" ] && { echo "${p#*=}"; return; }; done; }
# The part of each value that is searched for (a token's prefix is public).
needle() { local v; v=$(val "$1"); case "$1" in hf|ghp|ghpat|openai|slack) echo "${v#*Mx}" ;; *) echo "$v" ;; esac; }

JWT="eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJteCJ9.$(val jwtsig)"
# The log forms, one per line, each also a CUDA OOM so that explain quotes it.
cat >"$T/forms.txt" <<EOF
HF_HUB_TOKEN=$(val hf) hub login
client = OpenAI(api_key="$(val openai)")
remote: https://github.com token $(val ghp)
GITHUB_TOKEN: $(val ghpat)
aws_access_key_id = $(val akia)
aws_secret_access_key = $(val awssecret)
{"type": "service_account", "private_key": "-----BEGIN PRIVATE KEY-----\\n$(val gcp)\\n-----END PRIVATE KEY-----\\n"}
slack notify $(val slack)
session $JWT
-H "Authorization: Bearer $(val bearer)"
Authorization: Basic $(val basic)
connecting to https://trainer:$(val urlpw)@master.example:29500
PGPASSWORD=$(val pg) psql -h db
MLFLOW_TRACKING_PASSWORD=$(val mlflow)
wandb: WANDB_API_KEY=$(val wandb)
machine api.wandb.ai login user password $(val netrc)
curl -u alice:$(val curl) https://example.com/upload
git clone https://$(val gitok)@github.com/org/repo.git
EOF
while IFS= read -r l; do printf '%s %s\n' "$OOM" "$l"; done <"$T/forms.txt" >"$T/train.log"
# A key printed over several lines, as cat key.pem would.
printf -- '-----BEGIN PRIVATE KEY-----\n%s\n-----END PRIVATE KEY-----\n%s\n' "$(val pem)" "$OOM" >>"$T/train.log"

# scan WHAT FILE...: no needle of any planted secret in the files.
scan() {
  local what=$1 found="" k
  shift
  for p in "${SECRETS[@]}"; do
    k=${p%%=*}
    grep -qF -- "$(needle "$k")" "$@" 2>/dev/null && found="$found $k"
  done
  if [ -z "$found" ]; then pass "$what: no planted secret"; else
    fail "$what: leaked$found"
    for k in $found; do grep -hnF -- "$(needle "$k")" "$@" | head -2 | cut -c1-200 | sed "s/^/    | $k: /"; done
  fi
}

# ---- explain: log text. A finding quotes its first lines only, so each
# form gets a log of its own (and the key printed over lines one too).
mkdir -p "$T/logs"
n=0
while IFS= read -r l; do n=$((n + 1)); printf '%s %s\n' "$OOM" "$l" >"$T/logs/form$n.log"; done <"$T/forms.txt"
printf -- '-----BEGIN PRIVATE KEY-----\n%s\n-----END PRIVATE KEY-----\n' "$(val pem)" >"$T/logs/key.log"
: >"$T/ex.out"
for f in "$T"/logs/*.log; do
  "$ND" explain --all "$f" >>"$T/ex.out" 2>&1
  "$ND" explain --all "$f" "$T/logs/key.log" >>"$T/ex.out" 2>&1
  "$ND" explain --json "$f" >>"$T/ex.out" 2>&1
  gzip -c "$f" >"$f.gz"
  "$ND" explain --json "$f.gz" >>"$T/ex.out" 2>&1
done
assert_contains "$T/ex.out" "GPU out of memory" "explain read the planted logs"
if [ "$(grep -c 'CUDA out of memory. ' "$T/ex.out")" -ge "$n" ]; then pass "every form was quoted as evidence"
else fail "only $(grep -c 'CUDA out of memory. ' "$T/ex.out") quoted lines for $n forms"; fi
scan "explain (text, JSON, .gz)" "$T/ex.out"
# A match deep in a long line is quoted from a window of the line: the
# window must not start inside "password=..." and show the bare value.
: >"$T/cut.out"
for gap in 80 90 100 110 118; do
  printf '%s password=MxCutLinePw%03d%s%s\n' "$(printf '%05000d' 0)" "$gap" "$(printf '%*s' "$gap" '' | tr ' ' y)" \
    "$OOM" >"$T/cut.log"
  "$ND" explain --json "$T/cut.log" >>"$T/cut.out" 2>&1
done
assert_contains "$T/cut.out" "GPU out of memory" "the long lines were explained"
assert_not_contains "$T/cut.out" "MxCutLinePw" "a window cut into a long line shows no secret value"
run_nd "$T/o" "$T/e" explain --all "$T/train.log"
expect_rc 2 "explain reads the whole planted log"
scan "explain --all of the whole log" "$T/o" "$T/e"

# ---- run: job output, argv (options split over two words), environment
cat >"$T/job.sh" <<EOF
#!/bin/sh
cat "$T/train.log"
exit 1
EOF
chmod +x "$T/job.sh"
mkdir -p "$T/rep"
PGPASSWORD=$(val pg) MLFLOW_TRACKING_PASSWORD=$(val mlflow) WANDB_API_KEY=$(val wandb) \
  OTEL_EXPORTER_OTLP_HEADERS="Authorization=Bearer $(val otel)" \
  "$ND" run --no-devices --report "$T/rep" --json-summary="$T/sum.json" --metrics-file "$T/m.prom" -- \
  "$T/job.sh" --password "$(val argpw)" --token "$(val argtok)" -u "alice:$(val curl)" \
  "https://$(val gitok)@github.com/o/r" >"$T/run.out" 2>"$T/run.err"
rc=$?
expect_rc 1 "run keeps the job's status"
assert_contains "$T/run.out" "$(needle pg)" "the job's own output passes through untouched"
scan "run stderr (live alerts, summary)" "$T/run.err"
scan "run --json-summary" "$T/sum.json"
# shellcheck disable=SC2046
scan "run --report files" $(find "$T/rep" -type f)
scan "run --metrics-file" "$T/m.prom"
assert_json "$T/sum.json" '"--password" in d["job"]["argv"] and "--token" in d["job"]["argv"]' "the option names stay in the summary"

# ---- a process of another user: argv and /proc/PID/environ
cat >"$T/victim.sh" <<'EOF'
#!/bin/sh
sleep 60
EOF
chmod +x "$T/victim.sh"
PGPASSWORD=$(val pg) MLFLOW_TRACKING_PASSWORD=$(val mlflow) WANDB_API_KEY=$(val wandb) \
  OTEL_EXPORTER_OTLP_HEADERS="Authorization=Bearer $(val otel)" HF_HOME_URL="https://u:$(val urlpw)@hub.example" \
  "$T/victim.sh" --password "$(val argpw)" --token "$(val argtok)" "--hf=$(val hf)" &
victim=$!
ND_BG_PIDS="$victim"
sleep 0.3
mkdir -p "$T/wrep"
run_nd "$T/o" "$T/e" watch --no-devices --pid "$victim" --for 1 --interval 0.5 --report "$T/wrep" --json-summary="$T/wsum.json"
scan "watch stdout and stderr" "$T/o" "$T/e"
scan "watch --json-summary" "$T/wsum.json"
# shellcheck disable=SC2046
scan "watch --report files" $(find "$T/wrep" -type f)
run_nd "$T/o" "$T/e" ps --all --interval 0
assert_contains "$T/o" "victim.sh --password" "ps lists the process"
scan "ps" "$T/o" "$T/e"
run_nd "$T/o" "$T/e" ps --all --json --interval 0
scan "ps --json" "$T/o" "$T/e"
run_nd "$T/o" "$T/e" check --env-from "$victim"
scan "check --env-from" "$T/o" "$T/e"
run_nd "$T/o" "$T/e" check --json --env-from "$victim"
scan "check --json --env-from" "$T/o" "$T/e"
run_nd "$T/o" "$T/e" check --report-issue --env-from "$victim"
scan "check --report-issue --env-from" "$T/o" "$T/e"
run_nd "$T/snap-pid.json" "$T/e" snapshot --json --env-from "$victim"
scan "snapshot --env-from" "$T/snap-pid.json" "$T/e"
kill "$victim" 2>/dev/null
wait "$victim" 2>/dev/null
ND_BG_PIDS=""

# ---- env files
{
  echo "PATH=/usr/bin:/bin"
  echo "PGPASSWORD=$(val pg)"
  echo "MLFLOW_TRACKING_PASSWORD=$(val mlflow)"
  echo "WANDB_API_KEY=$(val wandb)"
  echo "HF_TOKEN=$(val hf)"
  echo "AWS_ACCESS_KEY_ID=$(val akia)"
  echo "AWS_SECRET_ACCESS_KEY=$(val awssecret)"
  echo "OTEL_EXPORTER_OTLP_HEADERS=Authorization=Bearer $(val otel)"
  echo "LAUNCH_CMD=torchrun train.py --password $(val argpw) --token $(val argtok)"
  echo "MASTER_ADDR=https://trainer:$(val urlpw)@master.example"
  echo "GIT_REMOTE=https://$(val gitok)@github.com/o/r"
  echo "SLACK_WEBHOOK_NOTE=$(val slack)"
} >"$T/job.env"
run_nd "$T/o" "$T/e" check --env-file "$T/job.env"
scan "check --env-file" "$T/o" "$T/e"
run_nd "$T/o" "$T/e" check --json --env-file "$T/job.env"
scan "check --json --env-file" "$T/o" "$T/e"
run_nd "$T/o" "$T/e" check --report-issue --env-file "$T/job.env"
scan "check --report-issue" "$T/o" "$T/e"
run_nd "$T/o" "$T/e" snapshot --text --env-file "$T/job.env"
scan "snapshot --text" "$T/o" "$T/e"
run_nd "$T/o" "$T/e" snapshot --env-file "$T/job.env" -o "$T/snap.json"
scan "snapshot -o" "$T/snap.json" "$T/o" "$T/e"
assert_json "$T/snap.json" 'd["env"]["OTEL_EXPORTER_OTLP_HEADERS"].startswith("Authorization=Bearer <redacted:")' "the OTEL header keeps its shape"

# ---- diff: a snapshot from elsewhere with the secrets in clear
python3 - "$T/snap.json" "$T/raw.json" "$T/train.log" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
lines = open(sys.argv[3]).read().splitlines()
for i, l in enumerate(lines):
    d["env"]["LOGLINE_%d" % i] = l
d["findings"].append({"id": "x.leak", "category": "config", "severity": "info", "title": "t",
                      "evidence": [{"text": l} for l in lines]})
json.dump(d, open(sys.argv[2], "w"))
PY
run_nd "$T/o" "$T/e" diff --all "$T/raw.json" "$T/snap.json"
scan "diff --all" "$T/o" "$T/e"
run_nd "$T/o" "$T/e" diff --all --json "$T/raw.json" "$T/snap.json"
scan "diff --all --json" "$T/o" "$T/e"
finish
