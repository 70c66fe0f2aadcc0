#!/usr/bin/env bash
# Secrets in free text, as a table: every form below (name: value,
# name=value, JSON pairs, --option value, Authorization headers, URL
# passwords, webhook URLs, AWS/HF/GitHub/OpenAI/Anthropic/Slack/GitLab token
# shapes, PEM blocks, JWTs) is planted in log text, job output and env
# values, and every output is searched for it: explain (text, JSON, .gz),
# run (live alerts, summary, report files), snapshot, check --report-issue
# (Markdown), diff. A second table holds near misses (loss: 0.53,
# token_ids=..., max_tokens=256...) that must come out unchanged. Each
# secret holds a needle MxS4kNN, which no marker can contain.
. "$(dirname "$0")/lib/assert.sh"
. "$(dirname "$0")/lib/secrets.sh"
export NO_COLOR=1 NPU_DOCTOR_REDACT_KEY=forms NPU_DOCTOR_DCMI_LIB=$T/none NPU_DOCTOR_NVML_LIB=$T/none
OOM='torch.cuda.OutOfMemoryError: CUDA out of memory.'

cat >"$T/forms.txt" <<'EOF'
api_key: MxS4k01secretvalue
password: MxS4k02secretvalue
secret: MxS4k03secretvalue
token: MxS4k04secretvalue
HF_TOKEN: MxS4k05secretvalue
client_secret=MxS4k06secretvalue
api_key=MxS4k07secretvalue
password = MxS4k08secretvalue
{"api_key": "MxS4k09secretvalue"}
{"client_secret": "MxS4k10secretvalue", "x": 1}
{'password': 'MxS4k11secretvalue'}
--api-key MxS4k12secretvalue
--hf-token MxS4k13secretvalue
--password MxS4k14secretvalue
--api_key=MxS4k15secretvalue
Authorization: Bearer MxS4k16secretvalue
authorization: bearer MxS4k17secretvalue
"Authorization": "Bearer MxS4k18secretvalue"
https://alice:MxS4k19secretvalue@example.com/x
redis://:MxS4k20secretvalue@cache:6379/0
AKIAMXS4K21ABCDEFGHJ
aws_secret_access_key = MxS4k22secretvalue/abcdEXAMPLE
hf_MxS4k23abcdefghijklmnopqrstuvwxyz01
ghp_MxS4k24abcdefghijklmnopqrstuvwxyz01
github_pat_11MxS4k25abcdefghij_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOP
sk-MxS4k26abcdefghijklmnopqrstuvwxyz0123
sk-proj-MxS4k27abcdefghijklmnopqrstuvwxyz
xoxb-123456789012-MxS4k28abcdefghij
https://hooks.slack.com/services/T0000MXS4/B000029XX/MxS4k29abcdefghijklmnop
-----BEGIN RSA PRIVATE KEY----- MIIEMxS4k30abcdefghijklmnopqrstuvwxyz0123456789ABCD -----END RSA PRIVATE KEY-----
eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJNeFM0azMxIn0.MxS4k31signaturepartabc
ASIAMXS4K32ABCDEFGHJ
x-api-key: MxS4k33secretvalue
X-Api-Key: MxS4k34secretvalue
apiKey: "MxS4k35secretvalue"
--token=MxS4k36secretvalue
access_token=MxS4k37secretvalue&foo=bar
"private_key": "-----BEGIN PRIVATE KEY-----\nMxS4k38abcdefghijklmnopqrstuvwxyz\n-----END PRIVATE KEY-----\n"
Cookie: session=MxS4k39secretvalue
OPENAI_API_KEY="MxS4k40secretvalue"
export AWS_SECRET_ACCESS_KEY=MxS4k41secretvalue
--secret MxS4k42secretvalue
passwd: MxS4k43secretvalue
xoxp-123456789012-MxS4k44abcdefghij
glpat-MxS4k45abcdefghijklmn
WANDB_API_KEY: MxS4k46secretvalue
--key MxS4k47secretvalue
key: MxS4k48secretvalue
key=MxS4k49secretvalue
"token": "MxS4k50secretvalue"
Proxy-Authorization: Basic MxS4k51secretvalue
--auth-token MxS4k52secretvalue
sk-ant-api03-MxS4k53abcdefghijklmnopqrstuvwxyz
EOF
cat >"$T/near.txt" <<'EOF'
step 10 loss: 0.53 lr: 0.0001
token_ids=[101, 2023, 102]
max_tokens=256
key_padding_mask shape torch.Size([8, 512])
num_tokens: 4096
tokens/s: 1234.5
key: layer.0.weight
KeyError: 'model.embed_tokens.weight'
auth: ok
tokenizer: bert-base-uncased
pad_token: <pad>
token_type_ids: [0, 0, 0]
--max-tokens 256
key_dim=64
password is wrong for user bob
hf_hub_download failed for model
https://pypi.org/simple/torch/
git@github.com:org/repo.git
AKIA is a prefix
Authorization failed: 401
sk-learn
grad_norm: 1.25 token_acc: 0.91
secret_santa.py
--key-file /etc/ssl/key.pem
api_key_env=OPENAI_API_KEY
TOKENIZERS_PARALLELISM=false
KEY_LAYOUT=us
attention_mask=None
export PATH=/usr/local/bin
bos_token: <s>
use_auth_token=True
trust_remote_code=True
--token-budget 4096
EOF
SECRETS_NEEDLES=$T/needles
grep -oiE 'MxS4k[0-9][0-9]' "$T/forms.txt" >"$SECRETS_NEEDLES"
[ "$(wc -l <"$SECRETS_NEEDLES")" -eq "$(wc -l <"$T/forms.txt")" ] && pass "one needle per form" || fail "a form without its needle"

# ---- explain: one log per form (a finding quotes its first lines).
secrets_explain_each "$T/forms.txt" ' '

# ---- run: the job prints every form; its argv and environment hold some.
while IFS= read -r l; do printf '%s %s\n' "$OOM" "$l"; done <"$T/forms.txt" >"$T/train.log"
printf '#!/bin/sh\ncat "%s"\nexit 1\n' "$T/train.log" >"$T/job.sh"
chmod +x "$T/job.sh"
mkdir -p "$T/rep"
OPENAI_API_KEY=MxS4k40secretvalue LAUNCH_NOTE="$(sed -n 16p "$T/forms.txt")" \
  "$ND" run --no-devices --report "$T/rep" --json-summary="$T/sum.json" -- \
  "$T/job.sh" --api-key MxS4k12secretvalue "$(sed -n 19p "$T/forms.txt")" >"$T/run.out" 2>"$T/run.err"
rc=$?
expect_rc 1 "run keeps the job's status"
assert_contains "$T/run.err" "GPU out of memory" "run alerted on the planted output"
secrets_run_outputs "$T/run.err" "$T/sum.json" "$T/rep"

# ---- snapshot, check --report-issue (Markdown): each form as an env value
# of a name that is no secret's.
n=0
while IFS= read -r l; do n=$((n + 1)); printf 'LOGLINE_%d=%s\n' "$n" "$l"; done <"$T/forms.txt" >"$T/forms.env"
secrets_env_file_sweep "$T/forms.env"
# ---- diff: a snapshot from elsewhere with every form in clear.
secrets_diff_foreign "$T/forms.txt"

# ---- near misses: quoted whole by explain, kept in a snapshot's env.
: >"$T/near.out"
while IFS= read -r l; do
  printf '%s %s\n' "$OOM" "$l" >"$T/near.log"
  "$ND" explain --json "$T/near.log" >>"$T/near.out" 2>&1
done <"$T/near.txt"
n=0
while IFS= read -r l; do n=$((n + 1)); printf 'NEAR_%d=%s\n' "$n" "$l"; done <"$T/near.txt" >"$T/near.env"
run_nd "$T/nsnap.json" "$T/e" snapshot --json --env-file "$T/near.env"
python3 - "$T/near.txt" "$T/near.out" "$T/nsnap.json" >"$T/near.res" <<'PY'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
ex = open(sys.argv[2]).read()
env = json.load(open(sys.argv[3]))["env"]
for i, l in enumerate(lines, 1):
    if json.dumps(l)[1:-1] not in ex:
        print("explain changed: " + l)
    if env.get("NEAR_%d" % i) != l:
        print("snapshot changed: %s -> %s" % (l, env.get("NEAR_%d" % i)))
PY
if [ -s "$T/near.res" ]; then fail "near misses were redacted"; sed 's/^/    | /' "$T/near.res"
else pass "every near miss came out unchanged ($(wc -l <"$T/near.txt") strings, explain and snapshot)"; fi
finish
