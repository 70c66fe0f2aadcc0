#!/usr/bin/env bash
# Hostile use of a tool that runs as root on shared hosts: output paths that
# are symlinks, devices or FIFOs; closed standard descriptors; jobs that
# ignore SIGTERM or outlive a SIGKILLed supervisor; planted secrets; escape
# sequences and invalid UTF-8 in what other users control; odd input files.
# One section per class of hostile input or environment. Every wait here is bounded
# (a hang is a failure, never a pass) and nothing asserts on elapsed time.
. "$(dirname "$0")/lib/assert.sh"

HELPERS=${ND_HELPERS:?}
export NO_COLOR=1
# A fresh empty environment file keeps snapshot/check fast and deterministic.
printf 'PATH=/usr/bin:/bin\n' >"$T/job.env"

# wait_gone PID: polls (bounded, 60 s) until PID no longer exists; 0 if gone.
wait_gone() {
  local i=0
  while kill -0 "$1" 2>/dev/null; do
    i=$((i + 1))
    [ "$i" -gt 600 ] && return 1
    sleep 0.1
  done
  return 0
}
# wait_file FILE: polls (bounded, 60 s) until FILE is non-empty.
wait_file() {
  local i=0
  while [ ! -s "$1" ]; do
    i=$((i + 1))
    [ "$i" -gt 600 ] && return 1
    sleep 0.1
  done
  return 0
}

valid_json() { python3 -c 'import json,sys; json.load(open(sys.argv[1], "rb"))' "$1" 2>/dev/null; }

# ---------------------------------------------------------------- 1. output paths
# A device node stands in for /dev/null: as root the old rename replaced it.
if [ "$(id -u)" = 0 ] && mknod "$T/null" c 1 3 2>/dev/null; then DEV=$T/null; else DEV=/dev/null; fi
run_nd "$T/o" "$T/e" snapshot --env-file "$T/job.env" -o "$DEV"
expect_rc 73 "snapshot -o a device node is refused"
if [ -c "$DEV" ]; then pass "the device node is still a device"; else fail "the device node was replaced"; fi
assert_contains "$T/e" "refusing to replace"
if [ "$(wc -l <"$T/e")" -eq 1 ]; then pass "one line on stderr"; else fail "stderr: $(cat "$T/e")"; fi

mkfifo "$T/fifo"
run_nd "$T/o" "$T/e" snapshot --env-file "$T/job.env" -o "$T/fifo"
expect_rc 73 "snapshot -o a FIFO is refused (and does not block)"
if [ -p "$T/fifo" ]; then pass "the FIFO is untouched"; else fail "the FIFO was replaced"; fi

echo precious >"$T/target"
ln -s "$T/target" "$T/link"
run_nd "$T/o" "$T/e" snapshot --env-file "$T/job.env" -o "$T/link"
expect_rc 73 "snapshot -o a symlink is refused"
if [ -L "$T/link" ] && [ "$(cat "$T/target")" = precious ]; then pass "symlink and target untouched"; else fail "symlink or target changed"; fi

mkdir "$T/adir"
run_nd "$T/o" "$T/e" snapshot --env-file "$T/job.env" -o "$T/adir"
expect_rc 73 "snapshot -o a directory is refused"

(cd "$T" && "$ND" snapshot --env-file "$T/job.env" -o - >"$T/stdout.json" 2>"$T/e")
rc=$?
expect_rc 0 "snapshot -o - writes stdout"
if [ -e "$T/-" ]; then fail "a file named '-' was created"; else pass "no file named '-'"; fi
if valid_json "$T/stdout.json"; then pass "-o - printed the JSON document"; else fail "-o - output is not JSON"; fi

echo old >"$T/regular.json"
chmod 0600 "$T/regular.json"
run_nd "$T/o" "$T/e" snapshot --env-file "$T/job.env" -o "$T/regular.json"
expect_rc 0 "snapshot -o an existing regular file replaces it"
if valid_json "$T/regular.json"; then pass "the regular file holds the new snapshot"; else fail "regular file not replaced"; fi
if [ "$(stat -c %a "$T/regular.json")" = 600 ]; then pass "its permissions are kept"; else fail "mode now $(stat -c %a "$T/regular.json")"; fi
if ls -a "$T" | grep -q '\.tmp-'; then fail "a temp file was left behind"; else pass "no temp file left"; fi

# --json-summary=FILE used fopen: it followed the link and truncated the target.
echo precious >"$T/target2"
ln -s "$T/target2" "$T/sumlink"
run_nd "$T/o" "$T/e" run --no-devices --json-summary="$T/sumlink" -- true
expect_rc 73 "--json-summary=symlink is refused before the job starts"
if [ "$(cat "$T/target2")" = precious ]; then pass "the symlink's target is intact"; else fail "target truncated"; fi
run_nd "$T/o" "$T/e" run --no-devices --json-summary="$DEV" -- true
expect_rc 73 "--json-summary=device is refused"

ln -s "$T/target" "$T/metrics.prom"
run_nd "$T/o" "$T/e" run --no-devices --metrics-file "$T/metrics.prom" -- true
expect_rc 73 "--metrics-file symlink is refused"
if [ -L "$T/metrics.prom" ] && [ "$(cat "$T/target")" = precious ]; then pass "metrics symlink untouched"; else fail "metrics symlink replaced"; fi

mkdir -p "$T/rep"
ln -s "$T/target" "$T/rep/timeline.svg"
run_nd "$T/o" "$T/e" run --no-devices --report "$T/rep" -- true
expect_rc 73 "--report with a symlink for timeline.svg is refused"
if [ -L "$T/rep/timeline.svg" ]; then pass "report symlink untouched"; else fail "report symlink replaced"; fi

# A temp name planted in advance cannot redirect the write.
run_nd "$T/o" "$T/e" snapshot --env-file "$T/job.env" -o "$T/fresh.json"
expect_rc 0 "snapshot -o a new file"
if valid_json "$T/fresh.json"; then pass "new file written"; else fail "new file missing"; fi

# More output paths: every writer refuses the same way, before the job starts.
mkfifo "$T/metrics.fifo"
timeout 60 "$ND" run --no-devices --metrics-file "$T/metrics.fifo" -- touch "$T/started-fifo" >"$T/o" 2>"$T/e"
rc=$?
expect_rc 73 "--metrics-file a FIFO is refused without blocking"
if [ -e "$T/started-fifo" ]; then fail "the job started anyway"; else pass "the job never started"; fi
mkdir -p "$T/rep2/report.json"
run_nd "$T/o" "$T/e" run --no-devices --report "$T/rep2" -- true
expect_rc 73 "--report with a directory at report.json is refused"
run_nd "$T/o" "$T/e" run --no-devices --json-summary="$T/no/such/dir/s.json" -- true
expect_rc 73 "--json-summary in a missing folder"
assert_contains "$T/e" "$T/no/such/dir/s.json" "the message names the path"

# ---------------------------------------------------------------- 2. closed fds 0-2
"$ND" run --no-devices --json-summary="$T/closed1.json" -- sh -c 'printf "%s-%s\n" JOBOUT LINE; printf "%s-%s\n" JOBERR LINE >&2' >&- 2>"$T/e"
rc=$?
expect_rc 0 "run with stdout closed"
if valid_json "$T/closed1.json"; then pass "summary is JSON with fd 1 closed"; else fail "summary corrupt with fd 1 closed"; fi
assert_not_contains "$T/closed1.json" "JOBOUT-LINE" "the job's output is not in the summary (fd 1 closed)"
"$ND" run --no-devices --json-summary="$T/closed2.json" -- sh -c 'printf "%s-%s\n" JOBOUT LINE; printf "%s-%s\n" JOBERR LINE >&2' >"$T/o" 2>&-
rc=$?
expect_rc 0 "run with stderr closed"
if valid_json "$T/closed2.json"; then pass "summary is JSON with fd 2 closed"; else fail "summary corrupt with fd 2 closed"; fi
assert_not_contains "$T/closed2.json" "JOBERR-LINE" "the job's stderr is not in the summary (fd 2 closed)"
"$ND" snapshot --env-file "$T/job.env" -o "$T/closed3.json" <&- >&- 2>&-
rc=$?
expect_rc 0 "snapshot with fds 0-2 closed"
if valid_json "$T/closed3.json"; then pass "snapshot written with fds 0-2 closed"; else fail "snapshot corrupt with fds 0-2 closed"; fi

# ---------------------------------------------------------------- 3. signals and the job's life
# SIGKILL to run: the job must not be orphaned (parent-death signal).
"$ND" run --no-devices -- sh -c 'echo $$ >"$0"; exec sleep 300' "$T/job1.pid" >"$T/o" 2>"$T/e" &
ndpid=$!
ND_BG_PIDS="$ndpid"
if wait_file "$T/job1.pid"; then
  jobpid=$(cat "$T/job1.pid")
  kill -KILL "$ndpid"
  wait "$ndpid" 2>/dev/null
  if wait_gone "$jobpid"; then pass "SIGKILL to run: the job is killed too"
  else fail "SIGKILL to run: the job $jobpid was orphaned"; kill -KILL "$jobpid" 2>/dev/null; fi
else
  fail "the job never started"
fi

# SIGTERM to run, with a job that ignores it: escalates to SIGKILL after --grace.
"$ND" run --no-devices --grace 1 -- sh -c 'trap "" TERM; echo $$ >"$0"; while :; do sleep 0.2; done' "$T/job2.pid" \
  >"$T/o" 2>"$T/e" &
ndpid=$!
ND_BG_PIDS="$ndpid"
if wait_file "$T/job2.pid"; then
  jobpid=$(cat "$T/job2.pid")
  kill -TERM "$ndpid"
  if wait_gone "$ndpid"; then
    wait "$ndpid"
    rc=$?
    expect_rc 137 "SIGTERM ignored by the job: run ends with the job's SIGKILL status"
    if kill -0 "$jobpid" 2>/dev/null; then fail "the job survived"; kill -KILL "$jobpid"; else pass "the job is gone"; fi
    assert_contains "$T/e" "SIGKILL after 1 s"
  else
    fail "run kept running after SIGTERM with a job that ignores it"
    kill -KILL "$ndpid" 2>/dev/null
    kill -KILL "$jobpid" 2>/dev/null
  fi
else
  fail "the TERM-ignoring job never started"
fi

# Stray children left in the group when the main process exits: said, and
# their output up to their end is passed through.
run_nd "$T/o" "$T/e" run --no-devices --grace 5 -- sh -c '(trap "echo STRAY-GOT-TERM; exit 0" TERM; echo STRAY-STARTED; while :; do sleep 0.1; done) & sleep 0.5; exit 4'
expect_rc 4 "run with a stray child keeps the main process's status"
assert_contains "$T/e" "processes it left in its group get SIGTERM" "the stray children's fate is said"
assert_contains "$T/o" "STRAY-STARTED" "stray output before the exit passes through"
assert_contains "$T/o" "STRAY-GOT-TERM" "stray output after the exit passes through"
"$ND" run --help >"$T/o" 2>&1
assert_contains "$T/o" "parent-death signal" "run --help documents SIGKILL"
assert_contains "$T/o" "left behind" "run --help documents stray children"

# ---------------------------------------------------------------- 4. redaction
# Planted in env, argv (separate words), log text (many forms) and file names;
# searched for in every output the tool writes itself.
PLANTED=(EnvPlantedTok01 ArgvPlantedPw02 ArgvPlantedKey03 ArgvPlantedTok04 LogDictPw05 LogJsonKey06
  LogLowerPw07 LogSpacedPw08 LogAwsKey09 LogDbPass10 LogMysqlPwd11 LogOpenAiKey12abcdefghij
  LogJwtSignature13 LogPemBody14 FileNameTok15)
leaks() { # leaks DESCRIPTION FILE...: fails for each planted value found
  local what=$1 found=""
  shift
  for s in "${PLANTED[@]}"; do grep -qF -- "$s" "$@" 2>/dev/null && found="$found $s"; done
  if [ -z "$found" ]; then pass "$what: no planted secret"; else fail "$what: leaked$found"; grep -nF -e Planted -e Log "$@" | head -5 | sed 's/^/    | /'; fi
}
cat >"$T/secret-job.sh" <<'SH'
#!/bin/sh
echo "{'password': 'LogDictPw05', 'user': 'bob'}"
echo '{"api_key": "LogJsonKey06"}'
echo "password: LogLowerPw07"
echo "password = LogSpacedPw08"
echo "aws_secret_access_key: LogAwsKey09"
echo "DB_PASS=LogDbPass10 MYSQL_PWD=LogMysqlPwd11"
echo "client sk-proj-LogOpenAiKey12abcdefghij"
echo "jwt=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.LogJwtSignature13"
echo "-----BEGIN PRIVATE KEY-----LogPemBody14-----END PRIVATE KEY-----"
exit 0
SH
chmod +x "$T/secret-job.sh"
mkdir -p "$T/srep"
HF_TOKEN=EnvPlantedTok01 "$ND" run --no-devices --report "$T/srep" --json-summary="$T/ssum.json" -- \
  "$T/secret-job.sh" --password ArgvPlantedPw02 --api-key ArgvPlantedKey03 --token ArgvPlantedTok04 \
  >"$T/sout" 2>"$T/serr"
rc=$?
expect_rc 0 "run with planted secrets"
leaks "run stderr" "$T/serr"
leaks "run --json-summary" "$T/ssum.json"
leaks "report.json" "$T/srep/report.json"
leaks "timeline.svg" "$T/srep/timeline.svg"
assert_json "$T/ssum.json" '"--password" in d["job"]["argv"]' "the summary keeps the option names"

# Log text and a file name through explain: each line also says CUDA OOM, so
# it becomes evidence.
LOGN="$T/train-token=FileNameTok15.log"
while IFS= read -r l; do printf 'torch.cuda.OutOfMemoryError: CUDA out of memory. %s\n' "$l"; done <<'LOG' >"$LOGN"
{'password': 'LogDictPw05'}
{"api_key": "LogJsonKey06"}
password: LogLowerPw07
password = LogSpacedPw08
aws_secret_access_key: LogAwsKey09
DB_PASS=LogDbPass10 MYSQL_PWD=LogMysqlPwd11
sk-proj-LogOpenAiKey12abcdefghij
jwt=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.LogJwtSignature13
-----BEGIN PRIVATE KEY-----LogPemBody14
LOG
run_nd "$T/eo" "$T/ee" explain --all "$LOGN"
leaks "explain text (exit $rc)" "$T/eo" "$T/ee"
run_nd "$T/ej" "$T/ee" explain --json "$LOGN"
leaks "explain --json (exit $rc)" "$T/ej" "$T/ee"

# ps --json sees the job's command line while it runs.
printf '#!/bin/sh\nsleep 30\n' >"$T/sleeper.sh"
chmod +x "$T/sleeper.sh"
# A script keeps its arguments in its command line (exec would drop them).
"$T/sleeper.sh" --password ArgvPlantedPw02 --api-key ArgvPlantedKey03 &
sleeper=$!
ND_BG_PIDS="$sleeper"
"$ND" ps --all --json --interval 0 >"$T/ps.json" 2>"$T/pse"
assert_contains "$T/ps.json" "sleeper.sh --password" "ps lists the script with its option names"
leaks "ps --all --json" "$T/ps.json" "$T/pse"
"$ND" ps --all --interval 0 >"$T/ps.txt" 2>"$T/pse"
leaks "ps --all" "$T/ps.txt" "$T/pse"
kill "$sleeper" 2>/dev/null

# A short secret in a broken docker-inspect file is not echoed back.
printf '[{"Config": {"Env": ["A=1" hunter2x]}}]' >"$T/bad-inspect.json"
run_nd "$T/o" "$T/e" snapshot --env-file "$T/bad-inspect.json"
assert_not_contains "$T/e" "hunter2x" "a docker-inspect parse error does not echo the bytes"

# Look-alikes people need stay readable.
printf 'PATH=/usr/bin:/bin\nTOKENIZERS_PARALLELISM=false\nMAX_TOKENS=8192\nKEYBOARD=us\nAUTH_MODE=kerberos\n' >"$T/keep.env"
run_nd "$T/keep.json" "$T/e" snapshot --json --env-file "$T/keep.env"
assert_json "$T/keep.json" 'd["env"]["TOKENIZERS_PARALLELISM"] == "false" and d["env"]["MAX_TOKENS"] == "8192" and d["env"]["KEYBOARD"] == "us" and d["env"]["AUTH_MODE"] == "kerberos"' "look-alike names are not redacted"

# Keyed markers: one key (a cluster run) compares; different keys say so.
printf 'PATH=/usr/bin:/bin\nHF_TOKEN=same-secret-value\n' >"$T/k.env"
NPU_DOCTOR_REDACT_KEY=job-1 "$ND" snapshot --env-file "$T/k.env" -o "$T/ka.json" >/dev/null 2>&1
NPU_DOCTOR_REDACT_KEY=job-1 "$ND" snapshot --env-file "$T/k.env" -o "$T/kb.json" >/dev/null 2>&1
NPU_DOCTOR_REDACT_KEY=job-2 "$ND" snapshot --env-file "$T/k.env" -o "$T/kc.json" >/dev/null 2>&1
assert_json "$T/ka.json" 'd["redaction"]["key_source"] == "env" and len(d["redaction"]["key_fingerprint"]) == 16' "the snapshot records the key's fingerprint"
if python3 -c 'import hashlib,json,sys; d=json.load(open(sys.argv[1])); sys.exit(hashlib.sha256(b"same-secret-value").hexdigest()[:8] in d["env"]["HF_TOKEN"])' "$T/ka.json"
then pass "the marker is not the bare SHA-256 of the secret"; else fail "the marker is the bare SHA-256 (dictionary-checkable)"; fi
run_nd "$T/o" "$T/e" diff "$T/ka.json" "$T/kb.json"
assert_not_contains "$T/o" "HF_TOKEN" "same key: equal secrets compare equal"
run_nd "$T/o" "$T/e" diff "$T/ka.json" "$T/kc.json"
assert_not_contains "$T/o" "HF_TOKEN" "different keys: not reported as a difference"
assert_contains "$T/o" "not comparable" "different keys: said to be not comparable"

# Over-redaction in command lines: values people need stay readable.
"$T/sleeper.sh" --max-tokens 4096 --tokenizer /models/tok.model &
keep=$!
ND_BG_PIDS="$keep"
"$ND" ps --all --json --interval 0 >"$T/ps2.json" 2>/dev/null
assert_contains "$T/ps2.json" "--max-tokens 4096 --tokenizer /models/tok.model" "ps keeps --max-tokens and --tokenizer values"
kill "$keep" 2>/dev/null
printf 'PATH=/usr/bin:/bin\nDB_PASS=dbPlantedPass\nMYSQL_PWD=mysqlPlantedPwd\nclient_secret=lowerPlantedSecret\n' >"$T/pw.env"
run_nd "$T/o" "$T/e" check --json --env-file "$T/pw.env"
assert_not_contains "$T/o" "Planted" "check --json redacts DB_PASS, MYSQL_PWD, client_secret"
run_nd "$T/o" "$T/e" snapshot --json --env-file "$T/pw.env"
assert_not_contains "$T/o" "Planted" "snapshot redacts DB_PASS, MYSQL_PWD, client_secret"

# ---------------------------------------------------------------- 5. terminal injection
ESC=$(printf '\033')
BEL=$(printf '\007')
has_ctl() { LC_ALL=C grep -q "[$ESC$BEL]" "$@"; }
run_nd "$T/o" "$T/e" run --no-devices -- sh -c 'exit 0' "$(printf '\033]0;pwned\007')" "$(printf 'a\nFAKE: line\033[2J')"
expect_rc 0 "run with escape sequences in argv"
if has_ctl "$T/e"; then fail "run printed ESC/BEL from argv"; LC_ALL=C cat -v "$T/e" | head -5; else pass "run's summary shows argv escaped"; fi
assert_contains "$T/e" '\x1b]0;pwned' "the escape is shown visibly"
if grep -q '^FAKE: line' "$T/e"; then fail "a newline in argv started a line of its own"; else pass "a newline in argv does not start a line"; fi

sh -c 'exec sleep 30' "$(printf '\033[31mRED\033]8;;http://x\007')" &
victim=$!
ND_BG_PIDS="$victim"
run_nd "$T/o" "$T/e" watch --no-devices --pid "$victim" --for 1 --interval 0.5 --window 1 --hang-after 1
if has_ctl "$T/e" "$T/o"; then fail "watch printed ESC/BEL from a watched argv"; LC_ALL=C cat -v "$T/e" | head -5; else pass "watch shows a watched argv escaped"; fi
"$ND" ps --all --interval 0 >"$T/o" 2>"$T/e"
if has_ctl "$T/o" "$T/e"; then fail "ps printed ESC from argv"; else pass "ps shows argv escaped"; fi
kill "$victim" 2>/dev/null

# Log text and a file name with escapes, through explain's text output.
EVIL="$T/evil$(printf '\033[2J')name.log"
printf 'torch.cuda.OutOfMemoryError: CUDA out of memory. \033]52;c;cm0gLXJmIH4=\007 tail\n' >"$EVIL"
run_nd "$T/o" "$T/e" explain --all "$EVIL"
if has_ctl "$T/o" "$T/e"; then fail "explain printed ESC/BEL from a log or a file name"; LC_ALL=C cat -v "$T/o" | head -5; else pass "explain shows log text and file names escaped"; fi

# diff prints values from other hosts' snapshots: escapes there are shown, not obeyed.
printf 'PATH=/usr/bin:/bin\nBANNER=ok\n' >"$T/d1.env"
printf 'PATH=/usr/bin:/bin\nBANNER=\033]0;owned\007\033[2J\nSLURMD_NODENAME=node\033]0;x\007-2\n' >"$T/d2.env"
"$ND" snapshot --env-file "$T/d1.env" -o "$T/d1.json" >/dev/null 2>&1
"$ND" snapshot --env-file "$T/d2.env" -o "$T/d2.json" >/dev/null 2>&1
run_nd "$T/o" "$T/e" diff "$T/d1.json" "$T/d2.json"
assert_contains "$T/o" "BANNER" "diff reports the changed variable"
if has_ctl "$T/o" "$T/e"; then fail "diff printed ESC/BEL from a snapshot"; else pass "diff shows escapes from snapshots visibly"; fi

# Live alerts quote log lines; check and snapshot quote the job's environment.
run_nd "$T/o" "$T/e" run --no-devices -- sh -c 'printf "torch.cuda.OutOfMemoryError: CUDA out of memory. \033]0;pwn\007 x\n"; exit 1'
if has_ctl "$T/e"; then fail "a live alert printed ESC/BEL from a log line"; else pass "live alerts show log escapes visibly"; fi
printf 'PATH=/usr/bin:/bin\nASCEND_HOME_PATH=/opt/x\033]0;t\007\nLD_LIBRARY_PATH=/a\033[2J:/b\nMASTER_ADDR=h\033[31m\nRANK=0\n' >"$T/esc.env"
run_nd "$T/o" "$T/e" check --env-file "$T/esc.env"
if has_ctl "$T/o" "$T/e"; then fail "check printed ESC from the environment"; else pass "check shows environment escapes visibly"; fi
run_nd "$T/o" "$T/e" snapshot --text --env-file "$T/esc.env"
if has_ctl "$T/o" "$T/e"; then fail "snapshot --text printed ESC from the environment"; else pass "snapshot --text shows escapes visibly"; fi

# ---------------------------------------------------------------- 6. well-formed outputs
mkdir -p "$T/wrep"
run_nd "$T/o" "$T/e" run --no-devices --report "$T/wrep" --json-summary="$T/wsum.json" --metrics-file "$T/w.prom" -- \
  sh -c 'exit 0' "$(printf 'bad\377\376utf8 \303\050 <tag> & "q" \033[1m')" "$(printf '%0300d' 0)$(printf '\342\202\254')"
expect_rc 0 "run with invalid UTF-8 and markup in argv"
if python3 -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' "$T/wrep/timeline.svg" 2>"$T/xe"
then pass "timeline.svg is XML"; else fail "timeline.svg is not XML: $(cat "$T/xe" | tail -1)"; fi
for f in "$T/wrep/report.json" "$T/wsum.json"; do
  if valid_json "$f"; then pass "$(basename "$f") is JSON"; else fail "$(basename "$f") is not JSON"; fi
done
if python3 -c 'import sys; open(sys.argv[1], "rb").read().decode("utf-8")' "$T/w.prom" 2>/dev/null \
   && grep -q '^npu_doctor_job_cpu_cores[ {]' "$T/w.prom"; then pass "metrics file is UTF-8 Prometheus text"; else fail "metrics file broken"; fi
if python3 -c 'import sys,csv; rows=list(csv.reader(open(sys.argv[1], encoding="utf-8"))); sys.exit(0 if rows and all(len(r)==len(rows[0]) for r in rows) else 1)' "$T/wrep/timeline.csv" 2>/dev/null
then pass "timeline.csv is rectangular UTF-8 CSV"; else fail "timeline.csv broken"; fi

# ---------------------------------------------------------------- 7. input edge cases
OOM='torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB'
# A log truncated under its writer starts with a run of NULs; one stray NUL
# elsewhere: neither drops the log.
{ head -c 70000 /dev/zero; printf 'step 1\n%s\n' "$OOM"; } >"$T/holes.log"
run_nd "$T/o" "$T/e" explain "$T/holes.log"
expect_rc 2 "a log that starts with 70000 NULs is still read"
assert_contains "$T/o" "out of memory" "the text after the NUL run is matched"
assert_contains "$T/e" "NUL bytes skipped" "the NULs are noted"
{ printf 'start\n'; printf 'a\000b\n'; printf '%s\n' "$OOM"; } >"$T/onenul.log"
run_nd "$T/o" "$T/e" explain "$T/onenul.log"
expect_rc 2 "one NUL byte in the first 64 KiB does not drop the log"
run_nd "$T/o" "$T/e" explain "$HELPERS/$(ls "$HELPERS" | head -1)"
expect_rc 66 "an executable is still skipped as binary"

# Directory symlinks out of the tree are not followed unless asked.
mkdir -p "$T/tree/logs" "$T/outside"
printf '%s\n' "$OOM" >"$T/outside/other.log"
printf 'all fine\n' >"$T/tree/logs/rank0.log"
ln -s "$T/outside" "$T/tree/data"
ln -s "$T/outside/other.log" "$T/tree/linked.log"
mkdir -p "$T/tree/inner"
printf 'inner fine\n' >"$T/tree/inner/x.log"
ln -s "$T/tree/inner" "$T/tree/inner-link"
run_nd "$T/o" "$T/e" explain "$T/tree"
expect_rc 0 "explain DIR does not follow links out of the tree"
assert_not_contains "$T/o" "out of memory" "the outside log changed nothing"
assert_contains "$T/e" "not followed (--follow reads it)" "the skipped link is noted"
run_nd "$T/o" "$T/e" explain --follow "$T/tree"
expect_rc 2 "explain --follow DIR reads links out of the tree"

# Inputs that would block: a FIFO with no writer, a character device.
mkfifo "$T/nowriter"
timeout 60 "$ND" explain "$T/nowriter" >"$T/o" 2>"$T/e"
rc=$?
expect_rc 66 "explain on a FIFO with no writer ends"
timeout 60 "$ND" explain /dev/zero >"$T/o" 2>"$T/e"
rc=$?
expect_rc 66 "explain on /dev/zero ends"
assert_contains "$T/e" "is a device" "the device is named as the reason"
printf '%s\n' "$OOM" | timeout 60 "$ND" explain /dev/stdin >"$T/o" 2>"$T/e"
rc=$?
expect_rc 2 "a pipe that delivers is still read"
mkfifo "$T/snapfifo"
timeout 60 "$ND" diff "$T/snapfifo" "$T/ka.json" >"$T/o" 2>"$T/e"
rc=$?
if [ "$rc" -ne 124 ] && [ "$rc" -ne 0 ]; then pass "diff on a FIFO with no writer ends (exit $rc)"; else fail "diff on a FIFO: exit $rc"; fi
timeout 60 "$ND" diff /dev/zero "$T/ka.json" >"$T/o" 2>"$T/e"
rc=$?
if [ "$rc" -ne 124 ] && [ "$rc" -ne 0 ]; then pass "diff on /dev/zero ends (exit $rc)"; else fail "diff on /dev/zero: exit $rc"; fi

# A rules file over 4 MiB: one exit code everywhere.
mkdir -p "$T/bigrules"
{ printf '[rule.big]\nid = big.rule\n'; head -c 5000000 /dev/zero | tr '\0' '#'; printf '\n'; } >"$T/bigrules/big.rules"
run_nd "$T/o" "$T/e" explain --rules "$T/bigrules" "$T/onenul.log"
rc_explain=$rc
run_nd "$T/o" "$T/e" run --no-devices --rules "$T/bigrules" -- true
rc_run=$rc
run_nd "$T/o" "$T/e" rules lint "$T/bigrules"
rc_lint=$rc
if [ "$rc_explain" = 66 ] && [ "$rc_run" = 66 ] && [ "$rc_lint" = 66 ]; then pass "too-large rules file: 66 in explain, run and lint"
else fail "too-large rules file: explain $rc_explain, run $rc_run, lint $rc_lint (wanted 66 each)"; fi

# ps --user: a uid with no account and no process is as unknown as an unknown name.
run_nd "$T/o" "$T/e" ps --user 99999999 --interval 0
expect_rc 66 "ps --user of a uid nobody has"
run_nd "$T/o" "$T/e" ps --user nosuch-user-4711 --interval 0
expect_rc 66 "ps --user of an unknown name"
run_nd "$T/o" "$T/e" ps --user "$(id -u)" --interval 0
if [ "$rc" -ne 66 ] && [ "$rc" -ne 64 ]; then pass "ps --user of our own uid works (exit $rc)"; else fail "ps --user $(id -u): exit $rc"; fi

# check: driver libraries and /dev/davinci* present, version.info missing.
cp -a "${ND_FIXTURES:?}/roots/ascend-910b-cann80" "$T/noversion"
rm -f "$T/noversion/usr/local/Ascend/driver/version.info"
printf 'PATH=/usr/bin:/bin\n' >"$T/plain.env"
run_nd "$T/o" "$T/e" check --root "$T/noversion" --env-file "$T/plain.env"
if [ "$rc" -ne 0 ]; then pass "check with version.info missing is not 'ok' (exit $rc)"; else fail "check exits 0 with version.info missing"; fi
assert_not_contains "$T/o" "no problems found" "check does not say 'no problems found' after a failed line"
assert_contains "$T/o" "ascend.driver-version-missing" "the missing version.info is a finding"

# Vendor values that cannot be: used > total memory, "negative" MB, utilisation
# over 100 %: shown as unknown, never passed on.
(
  sim_910b_host "$(printf '[ascend.device.0]\nhbm_used_mb = 99999999\naicore_util = 250\n[ascend.device.1]\nhbm_used_mb = -5\n')"
  "$ND" ps --json --interval 0 >"$T/vps.json" 2>"$T/vps.err"
)
assert_json "$T/vps.json" 'all(not (x.get("memory_used_bytes") is not None and x.get("memory_total_bytes") is not None and x["memory_used_bytes"] > x["memory_total_bytes"]) for x in d["devices"])' "no device shows used > total memory"
assert_json "$T/vps.json" 'all("utilization_ratio" in x and (x["utilization_ratio"] is None or 0 <= x["utilization_ratio"] <= 1) for x in d["devices"])' "no device shows utilisation over 100%"
assert_json "$T/vps.json" 'all(x.get("memory_used_bytes") is None or x["memory_used_bytes"] >= 0 for x in d["devices"]) and len(d["devices"]) == 8' "the 8 devices are listed, none with an impossible count"

finish
