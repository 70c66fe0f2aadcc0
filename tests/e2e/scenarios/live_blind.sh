#!/usr/bin/env bash
# The live detectors with part of /proc hidden: `watch` run as another user
# than the job cannot read its open files, maps or I/O counters (a container
# that hides them looks the same). They judge from what is left (CPU, the
# vendor's process list), say what they could not see, and a quiet summary
# carries a note instead of passing for a clean one. Twin: the same jobs
# watched by their own user see everything and carry no such note.
. "$(dirname "$0")/lib/scenario.sh"
sim_910b_host '[ascend.device.0]
aicore_util = 85
hbm_used_mb = 20000'
J=$(cd "$(dirname "$0")" && pwd)/jobs/live

if [ "$(id -u)" != 0 ] || ! id nobody >/dev/null 2>&1; then
  # Switching users needs root; nothing here can be judged without it.
  echo "note - not root or no user nobody: watching as another user needs both"
  fail "live_blind needs root and the user nobody"
  finish
  exit
fi
chmod 755 "$T"
chmod 644 "$T/state.ini"
# Each watcher writes in a folder of its own: root refuses another user's
# (fileio.c), and nobody cannot write in root's.
mkdir -p "$T/w" "$T/wroot" && chown nobody "$T/w"

# blind_watch JOB AS: starts JOB (as root, holding npu:0) and watches it as AS
# (nobody or root) until it ends; the summary lands in $T/w/JOB.nobody.json
# or $T/wroot/JOB.root.json.
blind_watch() {
  rm -f "$T/ready"
  PYTHONPATH=$J PYTHONDONTWRITEBYTECODE=1 HOLD=6 DEVICE=$ROOT/dev/davinci0 READY=$T/ready \
    "$PY" "$J/$1.py" >"$T/job.out" 2>&1 &
  local job=$!
  ND_BG_PIDS=$job
  wait_file "$T/ready" || fail "$1 never started"
  local -a as=()
  [ "$2" = nobody ] && as=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
  local dir=$T/w
  [ "$2" = root ] && dir=$T/wroot
  "${as[@]}" "$ND" watch --pid "$job" --root "$ROOT" "${RUNOPTS[@]}" --hang-after 3 --quiet \
    --json-summary="$dir/$1.$2.json" >"$T/out" 2>"$T/err"
  wait "$job" 2>/dev/null
}

blind_watch fb_loss_cpu nobody
S=$T/w/fb_loss_cpu.nobody.json
assert_json "$S" 'any(f["category"] == "cpu-fallback" and f["severity"] in ("warning", "error") for f in d["findings"])' \
  "hidden fds: the CPU fallback is still said"
assert_json "$S" 'any("cannot be read here" in e["text"] for f in d["findings"] if f["category"] == "cpu-fallback" for e in f["evidence"]) and all(f["confidence"] == "low" for f in d["findings"] if f["id"] == "fallback.cpu-fallback")' \
  "hidden fds: it says it could not see who holds a device, at low confidence"
assert_json "$S" 'any(f["id"] == "monitor.limited-view" and f["severity"] == "info" and "/proc/PID/fd" in f["evidence"][0]["text"] for f in d["findings"])' \
  "hidden fds: the summary notes what was hidden"

blind_watch ok_short nobody
assert_json "$T/w/ok_short.nobody.json" 'any(f["id"] == "monitor.limited-view" for f in d["findings"])' \
  "a quiet job watched blind: a note, not a clean bill of health"

blind_watch fb_loss_cpu root
S=$T/wroot/fb_loss_cpu.root.json
assert_json "$S" 'not any(f["id"] == "monitor.limited-view" for f in d["findings"])' "twin: its own user sees everything"
assert_json "$S" 'any(f["id"] == "fallback.in-process" for f in d["findings"])' "twin: the holder computing on the CPU"
finish
