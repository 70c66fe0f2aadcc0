#!/usr/bin/env bash
# Planted secrets appear in no output of any command: HF_TOKEN,
# AWS_SECRET_ACCESS_KEY, WANDB_API_KEY, a MASTER_URL with user:password, and a
# variable the operator adds with --redact. Every command that could print
# them is run with them in its environment, argv or input, and everything it
# wrote (stdout, stderr, report files) is searched.
#
# A command that is not finished yet may fail or print nothing: the test then
# checks whatever it printed. A command that does not accept --redact yet is
# noted and run again with the same pattern in NPU_DOCTOR_REDACT (which every
# command honours through the redaction module), so the test stays meaningful
# while commands land.
. "$(dirname "$0")/lib/assert.sh"

export HF_TOKEN=hf_PlantedHuggingFaceToken0123456789
export AWS_SECRET_ACCESS_KEY=wJalrPlantedAwsSecretKey0123456789EXAMPLE
export WANDB_API_KEY=plantedwandbkey0123456789abcdef0123
export MASTER_URL=http://trainer:PlantedUrlPassw0rd@master.example:29500
export INTERNAL_ENDPOINT_ID=zz-planted-internal-4711
REDACT=(--redact 'INTERNAL_ENDPOINT')
BUILTIN=(PlantedHuggingFaceToken wJalrPlantedAwsSecretKey plantedwandbkey PlantedUrlPassw0rd)
CUSTOM=zz-planted-internal

n=0
# scan DESCRIPTION WITH_CUSTOM FILE...: no planted secret in any file.
scan() {
  local what=$1 custom=$2 leaked=""
  shift 2
  for s in "${BUILTIN[@]}" $([ "$custom" = yes ] && echo "$CUSTOM"); do
    if grep -qF -- "$s" "$@" 2>/dev/null; then leaked="$leaked $s"; fi
  done
  if [ -z "$leaked" ]; then pass "$what: no secret"; else
    fail "$what: leaked$leaked"
    grep -nF -e "${BUILTIN[0]}" -e "${BUILTIN[1]}" -e "${BUILTIN[2]}" -e "${BUILTIN[3]}" -e "$CUSTOM" "$@" | head -5 | sed 's/^/    | /'
  fi
}

# check_cmd DESCRIPTION ARGS...: runs npu-doctor ARGS with --redact (after the
# command name), or without it when the command does not take it yet.
check_cmd() {
  local what=$1
  shift
  local cmd=$1
  shift
  n=$((n + 1))
  local out="$T/c$n.out" err="$T/c$n.err"
  timeout 300 "$ND" "$cmd" "${REDACT[@]}" "$@" >"$out" 2>"$err"
  rc=$?
  if grep -q "unknown command" "$err"; then fail "$what: command $cmd does not exist"; return; fi
  if [ "$rc" -eq 64 ] && grep -qi "redact" "$err"; then
    # The environment form reaches every command through the redaction module.
    echo "note - $what: '$cmd' does not take --redact yet; using NPU_DOCTOR_REDACT"
    NPU_DOCTOR_REDACT='INTERNAL_ENDPOINT' timeout 300 "$ND" "$cmd" "$@" >"$out" 2>"$err"
    rc=$?
    scan "$what (exit $rc)" yes "$out" "$err"
    return
  fi
  scan "$what (exit $rc)" yes "$out" "$err"
}

FX=${ND_FIXTURES:?}
# snapshot, JSON and text, and written with -o.
check_cmd "snapshot --json" snapshot --json
check_cmd "snapshot --text" snapshot --text
check_cmd "snapshot -o" snapshot -o "$T/snap-a.json"
scan "snapshot -o file" yes "$T/snap-a.json"
assert_json "$T/snap-a.json" 'd["env"]["HF_TOKEN"].startswith("<redacted:") and d["env"]["INTERNAL_ENDPOINT_ID"].startswith("<redacted:")' "snapshot marks what it redacted"
assert_json "$T/snap-a.json" '"@master.example:29500" in d["env"]["MASTER_URL"]' "MASTER_URL keeps its host"

# check, text and JSON.
check_cmd "check" check
check_cmd "check --json" check --json
check_cmd "check --level 2 --json" check --level 2 --json

# check on a job environment file, where MASTER_ADDR itself carries a password.
env | grep -E '^(HF_TOKEN|AWS_SECRET_ACCESS_KEY|WANDB_API_KEY|MASTER_URL|INTERNAL_ENDPOINT_ID|PATH)=' >"$T/job.env"
printf 'MASTER_ADDR=%s\nRANK=0\nWORLD_SIZE=1\n' "$MASTER_URL" >>"$T/job.env"
check_cmd "check --json --env-file" check --json --env-file "$T/job.env"
check_cmd "snapshot --env-file" snapshot --json --env-file "$T/job.env"

# ps and watch: a process whose argv and environment hold the secrets.
python3 -c 'import time; time.sleep(120)' "--hf-token=$HF_TOKEN" "$MASTER_URL" "WANDB_API_KEY=$WANDB_API_KEY" &
ND_BG_PIDS="$!"
sleep 0.5
check_cmd "ps" ps
check_cmd "ps --json" ps --json
check_cmd "watch --report" watch --pid "$ND_BG_PIDS" --for 2 --report "$T/wreport"
if [ -d "$T/wreport" ]; then
  # shellcheck disable=SC2046
  scan "watch report files" yes $(find "$T/wreport" -type f)
else
  echo "note - watch --report wrote no report directory"
fi
kill $ND_BG_PIDS 2>/dev/null
wait $ND_BG_PIDS 2>/dev/null
ND_BG_PIDS=""

# explain on a log that contains them next to real errors.
cat >"$T/train.log" <<EOF
[launch] export HF_TOKEN=$HF_TOKEN
[launch] AWS_SECRET_ACCESS_KEY=$AWS_SECRET_ACCESS_KEY WANDB_API_KEY=$WANDB_API_KEY
[launch] INTERNAL_ENDPOINT_ID=$INTERNAL_ENDPOINT_ID
[rank0] connecting to $MASTER_URL
[rank0] env: environ({'HOME': '/root', 'HF_TOKEN': '$HF_TOKEN', 'AWS_SECRET_ACCESS_KEY': '$AWS_SECRET_ACCESS_KEY'})
[hub] GET https://huggingface.co/api/models -H "Authorization: Bearer $HF_TOKEN"
Traceback (most recent call last):
  File "train.py", line 3, in <module>
    import torch_npu
ModuleNotFoundError: No module named 'tbe'
RuntimeError: rendezvous at $MASTER_URL failed: HF_TOKEN=$HF_TOKEN token=$HF_TOKEN
EI0006: Getting socket times out. Reason: Remote Rank did not send the data in time. url=$MASTER_URL
EOF
check_cmd "explain" explain "$T/train.log"
check_cmd "explain --json" explain --json "$T/train.log"

# diff: snapshots written by hand with the secrets in clear (an old or
# foreign file), against our own.
python3 - "$FX/snapshots/founding/good.json" "$T/raw.json" <<'PY'
import json, os, sys
d = json.load(open(sys.argv[1]))
for k in ("HF_TOKEN", "AWS_SECRET_ACCESS_KEY", "WANDB_API_KEY", "MASTER_URL", "INTERNAL_ENDPOINT_ID"):
    d["env"][k] = os.environ[k]
d["facts"]["distributed"]["master_addr"] = os.environ["MASTER_URL"]
d["findings"].append({"id": "x.leak", "category": "config", "severity": "info", "title": "t",
                      "evidence": [{"text": "HF_TOKEN=" + os.environ["HF_TOKEN"]}]})
json.dump(d, open(sys.argv[2], "w"))
PY
check_cmd "diff (2 files)" diff "$T/raw.json" "$T/snap-a.json"
check_cmd "diff --all --json" diff --all --json "$T/raw.json" "$T/snap-a.json"
check_cmd "diff (3 files)" diff --all "$T/raw.json" "$T/snap-a.json" "$FX/snapshots/founding/bad.json"

# NPU_DOCTOR_REDACT alone (no --redact) covers the operator's name too.
NPU_DOCTOR_REDACT='INTERNAL_ENDPOINT' "$ND" snapshot --json >"$T/envre.json" 2>&1
scan "snapshot with NPU_DOCTOR_REDACT" yes "$T/envre.json"

# run --report DIR: the secrets in the job's argv and environment. The job
# prints nothing itself (its own output is passed through untouched).
check_cmd "run --report" run --report "$T/report" -- sh -c 'sleep 1' job "--token=$HF_TOKEN" "$MASTER_URL"
if [ -d "$T/report" ]; then
  files=$(find "$T/report" -type f | wc -l)
  pass "run wrote $files report files"
  # shellcheck disable=SC2046
  [ "$files" -gt 0 ] && scan "run report files" yes $(find "$T/report" -type f)
else
  echo "note - run --report wrote no report directory (run not finished yet?)"
fi
finish
