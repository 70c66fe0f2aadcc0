#!/usr/bin/env bash
# watch --fail-fast when the job's number is reused during the grace: the
# job leads its own group and, on SIGTERM, holds watch (SIGSTOP) and exits;
# its parent collects it, and in a pid namespace of its own (unshare, as
# root) a new process is given the same number through ns_last_pid and
# leads a group of that number (setsid). When watch goes on it must not
# send the job's SIGKILL to that group or that process. Real processes, no
# timing: every step waits for the one before.
. "$(dirname "$0")/lib/assert.sh"

if ! unshare --pid --fork --mount-proc true 2>/dev/null || ! command -v python3 >/dev/null; then
  pass "fail-fast and pid reuse: needs root, unshare --pid and python3 (not here)"
  finish
fi
ROOT=${ND_FIXTURES:?}/roots/ascend-910b-cann80
sim_910b_host

cat >"$T/job.py" <<'PY'
import os, signal, sys, time
T = sys.argv[1]
os.setpgid(0, 0)
def term(*_):
    os.kill(int(open(T + "/watch.pid").read()), signal.SIGSTOP)
    open(T + "/termed", "w").write("1")
    os._exit(0)
signal.signal(signal.SIGTERM, term)
open(T + "/ready", "w").write(str(os.getpid()))
signal.alarm(300)
while True:
    pass
PY
cat >"$T/inner.sh" <<'EOF2'
set -u
ND=$1 T=$2 ROOT=$3
python3 "$T/job.py" "$T" &
a=$!
for _ in $(seq 1200); do [ -s "$T/ready" ] && break; sleep 0.05; done
"$ND" watch --pid "$a" --for 120 --interval 0.5 --window 2 --fail-fast --grace 60 --root "$ROOT" \
  >/dev/null 2>"$T/watch.err" &
w=$!
echo "$w" >"$T/watch.pid"
for _ in $(seq 2400); do [ -s "$T/termed" ] && break; sleep 0.05; done
wait "$a"
python3 - "$a" "$w" "$T" <<'PY'
import os, sys, time
a, w, T = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
with open("/proc/sys/kernel/ns_last_pid", "w") as f:
    f.write(str(a - 1))
r, wr = os.pipe()
b = os.fork()
if b == 0:
    os.setsid()
    os.write(wr, b"x")
    time.sleep(600)
    os._exit(0)
os.read(r, 1)  # it leads its group now
def ended(p):
    try:
        return open(f"/proc/{p}/stat").read().rsplit(")", 1)[1].split()[0] in "ZX"
    except OSError:
        return True
os.kill(w, 18)  # SIGCONT
while not ended(w):
    time.sleep(0.05)
pid, st = os.waitpid(b, os.WNOHANG)
alive = pid == 0
if alive:
    os.kill(b, 9)
    os.waitpid(b, 0)
open(f"{T}/result", "w").write(f"{a} {b} {'alive' if alive else 'killed'}\n")
PY
wait "$w"
echo $? >"$T/watch.rc"
EOF2
timeout 300 unshare --pid --fork --mount-proc bash "$T/inner.sh" "$ND" "$T" "$ROOT"
[ -s "$T/termed" ] && pass "fail-fast sent the job SIGTERM" || fail "the job never got SIGTERM"
read -r a b state <"$T/result"
if [ "$a" = "$b" ]; then pass "the number $a was reused by a group leader"; else fail "not reused ($a, then $b)"; fi
[ "$state" = alive ] && pass "the new group with the job's old number was not signalled" ||
  fail "watch --fail-fast killed the process that took the job's number"
[ "$(cat "$T/watch.rc")" = 3 ] && pass "watch still says it stopped the job (exit 3)" ||
  fail "watch exit $(cat "$T/watch.rc"), not 3"
finish
