#!/usr/bin/env bash
# Planted secrets, third round: the forms no NAME=value rule sees (mysql
# -pX, sshpass, redis-cli -a, curl -uU:X, Ruby/Perl hash pairs, table rows
# of env dumps, base64 of a PEM key in a Kubernetes secret, an Azure
# connection string, URL query signatures, a JWT and a key far longer
# than any line cap), planted in log text, job output, argv, a watched
# process's environment and argv, env files and foreign snapshots. Every
# output path (explain text and JSON, run and watch reports with the
# timeline, summaries, ps, check --report-issue, snapshot, diff) is then
# searched for every planted value. The job's own output passes through
# untouched by design, so run's stdout is not searched.
. "$(dirname "$0")/lib/assert.sh"
. "$(dirname "$0")/lib/secrets.sh"
export NO_COLOR=1 NPU_DOCTOR_REDACT_KEY=tools
OOM='torch.cuda.OutOfMemoryError: CUDA out of memory.'
LONGJWT="eyJhbGciOiJIUzI1NiJ9.eyJ$(printf 'SxLongJwtClaims%04d' $(seq 1 400) | tr -d ' ')"
LONGKEY=$(printf 'SxLongKeyBody0123456789ABCDEFabcdef%04d' $(seq 1 200) | tr -d ' ')
# The needles: each form's secret, one a line.
cat >"$T/needles" <<'EOF'
SxMysqlPw1
SxMysqlPw2
SxSshpassPw3
SxRedisPw4
SxCurlPw5
SxRubyPw6
SxPerlTok7
SxTabPw8
SxSpacePw9
SxYamlPw10
SxJsonKey11
SxExportTok12
SxQueryTok13
SxAmzSig14
SxAzureKey15
SxHfTok16
SxHubTok17
CRUdJTiBQUklWQVRFIEtFWS0tLS0tClN4
SxLongJwtClaims0007
SxLongKeyBody0123456789ABCDEFabcdef0150
SxCshPw18
SxDockerTok19
EOF
cat >"$T/forms.txt" <<EOF
mysql -h db -u root -pSxMysqlPw1 train
/usr/bin/mysqldump -uroot -p'SxMysqlPw2' metrics
sshpass -pSxSshpassPw3 ssh worker1
redis-cli -h cache -a SxRedisPw4 ping
curl -ualice:SxCurlPw5 https://example.com/upload
config = { password => "SxRubyPw6" }
my %h = ( ':token' => 'SxPerlTok7' );
	PASSWORD	SxTabPw8
	DB_PASSWORD    SxSpacePw9
password: SxYamlPw10
{"api_key": "SxJsonKey11"}
+ export GITHUB_TOKEN=SxExportTok12
GET https://hub.example/f?token=SxQueryTok13&rev=main
GET https://b.s3.amazonaws.com/o?X-Amz-Algorithm=AWS4&X-Amz-Signature=SxAmzSig14
DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=SxAzureKey15==;EndpointSuffix=core.windows.net
HF_TOKEN=SxHfTok16
HUGGING_FACE_HUB_TOKEN: SxHubTok17
  tls.key: LS0tLS1CRUdJTiBQUklWQVRFIEtFWS0tLS0tClN4UGxhbnRlZEtleUJvZHk=
Authorization: $LONGJWT
-----BEGIN PRIVATE KEY-----$LONGKEY-----END PRIVATE KEY-----
setenv DB_PASSWORD SxCshPw18
Step 4/9 : ENV HF_TOKEN SxDockerTok19
EOF

SECRETS_NEEDLES=$T/needles

# ---- explain: one log per form (a finding quotes its first lines only);
# the table rows come after a tab, as a log with columns holds them.
secrets_explain_each "$T/forms.txt" $'\t'
# Lines are kept in part at several sizes (evidence, the report's last
# error, explain's line text, a live line): a secret across any such cut
# must not come out in part (what stays of it no longer looks like one).
: >"$T/cut.log"
for at in 230 236 240 395 400 990 996 1000 1020 1024 4090 4096; do
  for form in "https://trainer:SxCutUrlPw0123456789abcdefghij@master:29500" "hf_SxCutHfTok0123456789abcdefghijklmnop" \
    "eyJhbGciOiJIUzI1NiJ9.eyJTeEN1dEp3dENsYWltcyI6MX0.SxCutJwtSig012345" "Bearer SxCutBearer0123456789abcdef" \
    "-----BEGIN PRIVATE KEY-----SxCutKeyBody0123456789abcdefghijklmnopqrstuvwxyz-----END PRIVATE KEY-----"; do
    printf '%s %s %s\n' "$OOM" "$(printf '%*s' $((at - ${#OOM} - 2)) '' | tr ' ' y)" "$form" >>"$T/cut.log"
  done
done
printf '#!/bin/sh\ncat "%s"\nexit 1\n' "$T/cut.log" >"$T/cutjob.sh"
chmod +x "$T/cutjob.sh"
mkdir -p "$T/cutrep"
"$ND" run --no-devices --report "$T/cutrep" --json-summary="$T/cutrep/sum.json" -- "$T/cutjob.sh" >/dev/null 2>"$T/cutrep/err"
"$ND" explain --all "$T/cut.log" >"$T/cutrep/ex.txt" 2>&1
"$ND" explain --all --json "$T/cut.log" >"$T/cutrep/ex.json" 2>&1
assert_contains "$T/cutrep/ex.txt" "GPU out of memory" "the long lines were explained"
for piece in SxCutUrl SxCutHf eyJTeEN1 SxCutJwt SxCutBearer SxCutKey; do
  if grep -rqF "$piece" "$T/cutrep"; then fail "a part of a secret at a line cap came out ($piece)"
  else pass "no part of a secret cut at a line cap ($piece)"; fi
done
{ cat "$T/forms.txt"; echo "$OOM"; } >"$T/train.log"
run_nd "$T/o" "$T/e" explain --all --json "$T/train.log"
secrets_scan "explain --all --json of the whole log" "$T/o" "$T/e"

# ---- run: job output (the report's last lines), argv, environment
cat >"$T/job.sh" <<EOF
#!/bin/sh
cat "$T/train.log"
exit 1
EOF
chmod +x "$T/job.sh"
mkdir -p "$T/rep"
HF_TOKEN=SxHfTok16 HUGGING_FACE_HUB_TOKEN=SxHubTok17 \
  "$ND" run --no-devices --report "$T/rep" --json-summary="$T/sum.json" -- \
  "$T/job.sh" mysql -pSxMysqlPw1 redis-cli -a SxRedisPw4 -ualice:SxCurlPw5 "https://hub.example/f?token=SxQueryTok13" >"$T/run.out" 2>"$T/run.err"
rc=$?
expect_rc 1 "run keeps the job's status"
[ "$rc" = 1 ] || sed 's/^/    | /' "$T/run.err" | head -20
assert_contains "$T/run.out" "SxRedisPw4" "the job's own output passes through untouched"
secrets_run_outputs "$T/run.err" "$T/sum.json" "$T/rep"

# ---- a watched process: argv and environment
cat >"$T/victim.sh" <<'EOF'
#!/bin/sh
sleep 60
EOF
chmod +x "$T/victim.sh"
HF_TOKEN=SxHfTok16 HUGGING_FACE_HUB_TOKEN=SxHubTok17 "$T/victim.sh" mysql -pSxMysqlPw1 -a SxRedisPw4 redis-cli &
victim=$!
ND_BG_PIDS="$victim"
sleep 0.3
secrets_process_sweep "$victim" "victim.sh"
kill "$victim" 2>/dev/null
wait "$victim" 2>/dev/null
ND_BG_PIDS=""

# ---- env files: values that are commands and connection strings
{
  echo "PATH=/usr/bin:/bin"
  echo "HF_TOKEN=SxHfTok16"
  echo "HUGGING_FACE_HUB_TOKEN=SxHubTok17"
  echo "DB_CMD=mysql -u root -pSxMysqlPw1"
  echo "CACHE_CMD=redis-cli -a SxRedisPw4"
  echo "AZURE_STORAGE_CONNECTION_STRING=DefaultEndpointsProtocol=https;AccountName=a;AccountKey=SxAzureKey15=="
  echo "DATA_URL=https://b.s3.amazonaws.com/o?X-Amz-Signature=SxAmzSig14"
  echo "UPLOAD=curl -ualice:SxCurlPw5 https://x"
  echo "AUTH_HEADER=$LONGJWT"
} >"$T/job.env"
secrets_env_file_sweep "$T/job.env"

# ---- diff: a snapshot from elsewhere with the forms in clear
secrets_diff_foreign "$T/forms.txt"
finish
