#!/usr/bin/env bash
# watch --pid N when N is reused: the watched process exits, its parent
# collects it, and a new process gets the same number. Real reuse, made
# certain: in a pid namespace of its own (unshare, as root) the next pid is
# set through ns_last_pid, and watch is held with SIGSTOP while the number
# changes hands, so it first looks again when the other process has it.
# watch must end there: not take the other process for the job, and not
# report the other process's exit status (a zombie's 7) as the job's.
. "$(dirname "$0")/lib/assert.sh"

if ! unshare --pid --fork --mount-proc true 2>/dev/null || ! command -v python3 >/dev/null; then
  pass "pid reuse: needs root, unshare --pid and python3 to make a number be reused (not here)"
  finish
fi
export NPU_DOCTOR_DCMI_LIB=$T/none NPU_DOCTOR_NVML_LIB=$T/none

# Inside the namespace. $1: the case (zombie: the new process has exited
# with 7 and nobody collects it; alive: it sleeps). Writes the watch's exit
# status to $T/$1.rc, its stderr to $T/$1.err, the pids to $T/$1.pids.
cat >"$T/inner.sh" <<'EOF'
set -u
case=$1 ND=$2 T=$3
mkfifo "$T/$case.go"
sh -c 'read x <"$1"' sh "$T/$case.go" &
a=$!
"$ND" watch --no-devices --interval 0.2 --window 1 --for 300 --pid "$a" --metrics-file "$T/$case.prom" \
  --json-summary="$T/$case.json" >/dev/null 2>"$T/$case.err" &
w=$!
# Attached once its first sample is out.
for _ in $(seq 1200); do [ -s "$T/$case.prom" ] && break; sleep 0.05; done
kill -STOP "$w"
echo >"$T/$case.go"
wait "$a"
python3 - "$case" "$a" "$w" "$T" <<'PY'
import os, sys, time
case, a, w, T = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
with open("/proc/sys/kernel/ns_last_pid", "w") as f:
    f.write(str(a - 1))
b = os.fork()
if b == 0:
    if case == "zombie":
        os._exit(7)
    time.sleep(600)
    os._exit(0)
if case == "zombie":  # exited, not collected: a zombie with status 7
    os.waitid(os.P_PID, b, os.WEXITED | os.WNOWAIT)
open(f"{T}/{case}.pids", "w").write(f"{a} {b}\n")
os.kill(w, 18)  # SIGCONT
def ended(p):
    try:
        return open(f"/proc/{p}/stat").read().rsplit(")", 1)[1].split()[0] in "ZX"
    except OSError:
        return True
while not ended(w):
    time.sleep(0.05)
os.kill(b, 9)
os.waitpid(b, 0)
PY
wait "$w"
echo $? >"$T/$case.rc"
EOF

for c in zombie alive; do
  timeout 300 unshare --pid --fork --mount-proc bash "$T/inner.sh" "$c" "$ND" "$T"
  read -r a b <"$T/$c.pids"
  if [ "$a" = "$b" ]; then pass "$c: the number $a was reused"; else fail "$c: not reused ($a, then $b)"; continue; fi
  rc=$(cat "$T/$c.rc")
  assert_contains "$T/$c.err" "the job (pid $a) ended" "$c: watch ends when its process is gone"
  assert_contains "$T/$c.err" "pid $a now belongs to another process" "$c: and says the number changed hands"
  assert_json "$T/$c.json" "d['job']['pid'] == $a and d['job']['exit_status'] is None" \
    "$c: the other process's status is not the job's"
done
rc=$(cat "$T/zombie.rc")
[ "$rc" != 7 ] && pass "zombie: watch does not return the other process's 7 (exit $rc)" ||
  fail "zombie: watch returned the other process's exit status 7"
assert_not_contains "$T/zombie.err" "exit status 7" "zombie: 7 is not said to be the job's"
finish
