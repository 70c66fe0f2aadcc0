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
. "$(dirname "$0")/lib/secrets.sh"
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

SECRETS_NEEDLES=$T/needles
for p in "${SECRETS[@]}"; do needle "${p%%=*}"; done >"$SECRETS_NEEDLES"

# ---- explain: log text. A finding quotes its first lines only, so each
# form gets a log of its own (and the key printed over lines one too).
mkdir -p "$T/logs"
printf -- '-----BEGIN PRIVATE KEY-----\n%s\n-----END PRIVATE KEY-----\n' "$(val pem)" >"$T/logs/key.log"
secrets_explain_each "$T/forms.txt" ' ' "$T/logs/key.log"
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
secrets_scan "explain --all of the whole log" "$T/o" "$T/e"

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
secrets_run_outputs "$T/run.err" "$T/sum.json" "$T/rep" "$T/m.prom"
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
secrets_process_sweep "$victim" "victim.sh --password"
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
secrets_env_file_sweep "$T/job.env"
assert_json "$T/snap.json" 'd["env"]["OTEL_EXPORTER_OTLP_HEADERS"].startswith("Authorization=Bearer <redacted:")' "the OTEL header keeps its shape"

# ---- diff: a snapshot from elsewhere with the secrets in clear
secrets_diff_foreign "$T/train.log"
finish
