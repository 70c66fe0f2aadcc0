#!/usr/bin/env bash
# bench/run.sh: the costs of `npu-doctor run` and `watch`, each against an
# anchor measured in the same run. Prints figures and ratios; passes or fails
# nothing (the targets in brackets).
#   1. passthrough of 1 GiB of log lines: `npu-doctor run -- cat F` vs
#      `cat F | cat`, both into /dev/null                      [>= 0.9x cat]
#  1b. a 3M-line flood with three root-cause lines, every line matched:
#      throughput vs `cat | cat` (interleaved runs, medians), and how late
#      the live alerts came                                   [>= 0.9x cat]
#   2. monitor cost: CPU seconds of `npu-doctor watch` on a 64-process job at
#      1 s for 60 s vs bench/psutil_sampler.py doing the same work, all at
#      once on the same job (also shown: with 8 simulated NPUs sampled too)
#                                                             [<= 0.1x psutil]
#   3. detection latency of the seed case (test 1: CPU-only PyTorch training,
#      idle NPUs, CANN not sourced): sampler clock and wall seconds
#   4. npu-doctor's RSS over a 1-hour series fed by a synthetic clock
#      (watch --synthetic-clock: ticks back to back)        [< 20 MB]
#   5. detection time of each live scenario (tests/e2e/scenarios/jobs/job.py
#      on the simulated 910B host): the finding's at_s (sampler clock) next
#      to the window or hang setting that bounds it from below
# Section 2 also measures a 64-process job that holds npu:0 (every process
# inherits the device fd): per-process verdicts plus the I/O and wait-channel
# reads the storage form needs, the sampler's most expensive tick.
# Environment: ND_BIN (default build/npu-doctor), ND_SIM (simulator libs),
# BENCH_MONITOR_S (default 60), BENCH_GIB (default 1), BENCH_FLOOD_RUNS (default 7).
set -eu
cd "$(dirname "$0")/.."
ND=${ND_BIN:-build/npu-doctor}
SIM=${ND_SIM:-$(dirname "$ND")/sim}
PY=/usr/bin/python3
MON_S=${BENCH_MONITOR_S:-60}
GIB=${BENCH_GIB:-1}
[ -x "$ND" ] || { echo "bench/run.sh: build first ($ND missing)" >&2; exit 66; }
[ -e "$SIM/libdcmi.so" ] || { echo "bench/run.sh: simulator $SIM/libdcmi.so missing" >&2; exit 66; }
"$PY" -c 'import psutil, torch' 2>/dev/null || { echo "bench/run.sh: $PY needs python3-psutil and python3-torch" >&2; exit 66; }
command -v hyperfine >/dev/null || { echo "bench/run.sh: hyperfine is not installed" >&2; exit 66; }

W=$(mktemp -d)
JOB=
# cputime OUT CMD...: runs CMD, writes "user+sys_seconds wall_seconds max_rss_kb"
# (wait4's rusage: microseconds, where time(1) prints hundredths).
cputime() {
  local out=$1
  shift
  "$PY" - "$out" "$@" <<'PYEOF'
import os, subprocess, sys, time
t0 = time.monotonic()
p = subprocess.Popen(sys.argv[2:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
_, _, ru = os.wait4(p.pid, 0)
open(sys.argv[1], "w").write("%.6f %.3f %d\n" % (ru.ru_utime + ru.ru_stime, time.monotonic() - t0, ru.ru_maxrss))
PYEOF
}
cleanup() { [ -n "$JOB" ] && kill "$JOB" 2>/dev/null; rm -rf "$W"; }
trap cleanup EXIT
ROOT=$PWD/tests/fixtures/roots/ascend-910b-cann80
export NPU_DOCTOR_DCMI_LIB=$SIM/libdcmi.so NPU_DOCTOR_NVML_LIB=$W/none ND_SIM_STATE=$W/state.ini
printf '[ascend]\ndevices = 8\nchip_name = 910B3\naicore_util = 0\nhbm_total_mb = 65536\n' >"$W/state.ini"

echo "== 1. passthrough throughput ($GIB GiB of log lines into /dev/null)"
"$PY" - "$W/log" "$GIB" <<'PYEOF'
import random, sys
random.seed(1)
words = "step loss lr grad_norm epoch batch throughput samples/s tokens ms npu:0 rank 3 warning info".split()
lines = [("[%05d] " % i + " ".join(random.choice(words) for _ in range(random.randint(3, 20))) + "\n").encode()
         for i in range(4096)]
chunk = b"".join(lines)
target = int(float(sys.argv[2]) * (1 << 30))
with open(sys.argv[1], "wb") as f:
    left = target
    while left > 0:
        f.write(chunk[:left])
        left -= min(left, len(chunk))
PYEOF
cat "$W/log" >/dev/null   # into the page cache
hyperfine -N --warmup 1 --runs 5 --export-json "$W/tp.json" \
  -n cat "bash -c 'cat $W/log | cat >/dev/null'" \
  -n npu-doctor "bash -c '$ND run --quiet --json-summary=$W/tp-sum.json -- cat $W/log >/dev/null 2>/dev/null'" >/dev/null
"$PY" - "$W/tp.json" "$W/tp-sum.json" "$GIB" <<'PYEOF'
import json, statistics, sys
r = {x["command"]: statistics.median(x["times"]) for x in json.load(open(sys.argv[1]))["results"]}
gib = float(sys.argv[3])
facts = json.load(open(sys.argv[2]))["facts"]["job"]
print("  cat | cat          %6.3f s  %6.2f GiB/s" % (r["cat"], gib / r["cat"]))
print("  npu-doctor run     %6.3f s  %6.2f GiB/s" % (r["npu-doctor"], gib / r["npu-doctor"]))
ratio = r["cat"] / r["npu-doctor"]
print("  throughput ratio   %6.3f x cat   [>= 0.9: %s]" % (ratio, "met" if ratio >= 0.9 else "MISSED"))
m = facts["matching"]
print("  lines %d, all matched: %d live, %d late from the backlog (%d not matched)"
      % (facts["output_lines"], max(0, facts["output_lines"] - m["lines_matched_late"]), m["lines_matched_late"],
         facts["lines_not_matched"]))
PYEOF
rm -f "$W/log"

echo "== 1b. flood with root causes: 3M lines (torch_npu's dtype warning on 20% of them), one"
echo "      root-cause line at the start, middle and end; every line matched"
FLOOD=$(dirname "$ND")/helpers/flood_job
"$FLOOD" 3000000 5 >"$W/flood.log" 2>/dev/null || true
cat "$W/flood.log" >/dev/null
# Interleaved runs (the machine may be shared: each ratio compares runs made
# moments apart), medians of BENCH_FLOOD_RUNS (default 7).
"$PY" - "$ND" "$W" "${BENCH_FLOOD_RUNS:-7}" <<'PYEOF'
import json, os, statistics, subprocess, sys, time
nd, w, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
log, summ = w + "/flood.log", w + "/fl-sum.json"
gib = os.path.getsize(log) / (1 << 30)
def wall(cmd, **kw):
    t0 = time.monotonic()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, **kw)
    return time.monotonic() - t0
cat, whole, job, catchup, lag, ratios = [], [], [], [], [], []
for i in range(runs + 1):
    c = wall("cat %s | cat >/dev/null" % log, shell=True)
    r = wall([nd, "run", "--no-devices", "--json-summary=" + summ, "--", "cat", log])
    d = json.load(open(summ))
    if i == 0:
        continue   # warm-up
    m = d["facts"]["job"]["matching"]
    cat.append(c); whole.append(r); job.append(d["job"]["duration_s"])
    catchup.append(m["caught_up_after_exit_s"]); lag.append(m["max_alert_lag_s"]); ratios.append(c / job[-1])
med = statistics.median
facts = d["facts"]["job"]
m = facts["matching"]
# The job's own run (start to last byte out) is the passthrough; matching what
# the budget left behind happens after that, before the summary.
print("  cat | cat          %6.3f s  %6.2f GiB/s (median of %d)" % (med(cat), gib / med(cat), runs))
print("  job under run      %6.3f s  %6.2f GiB/s (median; until its last byte was passed on)" % (med(job), gib / med(job)))
print("  npu-doctor run     %6.3f s  (median, summary included: matching caught up %.3f s after the job)"
      % (med(whole), med(catchup)))
ratio = med(ratios)
print("  passthrough ratio  %6.3f x cat   (median of the runs' ratios; min %.3f, max %.3f)"
      "   [>= 0.9 while every line is matched: %s]" % (ratio, min(ratios), max(ratios), "met" if ratio >= 0.9 else "MISSED"))
print("  whole-run ratio    %6.3f x cat   (the summary waits until every line is matched)" % (med(cat) / med(whole)))
cats = sorted({f["category"] for f in d["findings"]})
print("  lines %d, not matched %d, matched late %d, repeats answered from the cache %d (last run)"
      % (facts["output_lines"], facts["lines_not_matched"], m["lines_matched_late"], m["repeats_from_cache"]))
print("  backlog peak %.0f MiB, of it spilled to disk %.0f MiB (last run)"
      % (m["backlog_peak_bytes"] / 2**20, m["backlog_spilled_bytes"] / 2**20))
print("  root causes found: %s; live alerts late: %d, the last up to %.2f s late (median %.2f s)"
      % (", ".join(c for c in cats if c in ("no-device", "device-oom", "host-oom")), m["alerts_late"], m["max_alert_lag_s"],
         med(lag)))
PYEOF
rm -f "$W/flood.log"

echo "== 2. monitor cost: a 64-process job, 1 s interval, ${MON_S} s"
# 64 Python processes (a trainer and 63 forked workers), idle, so the CPU measured is the monitors'.
"$PY" -c '
import os, sys, time
d = float(sys.argv[1])
for _ in range(63):
    if os.fork() == 0:
        time.sleep(d)
        os._exit(0)
time.sleep(d)
' $((MON_S + 120)) &
JOB=$!
sleep 2
# Three monitors at once on the same job: npu-doctor without device sampling
# (the same work as the psutil sampler), npu-doctor with the 8 simulated NPUs
# (its guarded vendor child included; the simulator's cost is the stand-in
# for the vendor library's), and the psutil sampler.
cputime "$W/nd.time" "$ND" watch --pid "$JOB" --for "$MON_S" --interval 1 --no-devices \
  --quiet --json-summary="$W/mon.json" &
ndw=$!
cputime "$W/ndd.time" "$ND" watch --pid "$JOB" --for "$MON_S" --interval 1 --root "$ROOT" \
  --quiet &
nddw=$!
cputime "$W/ps.time" "$PY" bench/psutil_sampler.py "$JOB" 1 "$MON_S" &
psw=$!
# The same job shape holding npu:0: the fd is inherited by all 64 processes.
"$PY" -c '
import os, sys, time
d = float(sys.argv[1])
fd = os.open(sys.argv[2], os.O_RDONLY)
for _ in range(63):
    if os.fork() == 0:
        time.sleep(d)
        os._exit(0)
time.sleep(d)
' $((MON_S + 120)) "$ROOT/dev/davinci0" &
JOB2=$!
sleep 2
cputime "$W/ndh.time" "$ND" watch --pid "$JOB2" --for "$MON_S" --interval 1 --root "$ROOT" \
  --quiet --json-summary="$W/monh.json" &
ndhw=$!
wait "$ndw" || true
wait "$nddw" || true
wait "$psw" || true
wait "$ndhw" || true
kill "$JOB2" 2>/dev/null || true
"$PY" - "$W/nd.time" "$W/ndd.time" "$W/ps.time" "$W/mon.json" "$W/ndh.time" "$W/monh.json" <<'PYEOF'
import json, sys
def cpu(path):
    c, e, _ = open(path).read().split()
    return float(c), float(e)
nd, nd_wall = cpu(sys.argv[1])
ndd, ndd_wall = cpu(sys.argv[2])
ps, ps_wall = cpu(sys.argv[3])
ndh, ndh_wall = cpu(sys.argv[5])
samples = json.load(open(sys.argv[4]))["facts"]["job"]["samples"]
procs = json.load(open(sys.argv[6])).get("processes", [])
print("  npu-doctor watch   %6.3f CPU s over %5.1f s  (%.2f%% of a core, %d samples, %d processes)"
      % (nd, nd_wall, 100 * nd / nd_wall, samples, 64))
print("    + 8 sim. NPUs    %6.3f CPU s over %5.1f s  (%.2f%% of a core, guarded vendor child included)"
      % (ndd, ndd_wall, 100 * ndd / ndd_wall))
print("    job on npu:0     %6.3f CPU s over %5.1f s  (%.2f%% of a core; per-process verdicts for %d processes,"
      " io and wait channels read each tick)" % (ndh, ndh_wall, 100 * ndh / ndh_wall, len(procs)))
print("  psutil sampler     %6.3f CPU s over %5.1f s  (%.2f%% of a core)" % (ps, ps_wall, 100 * ps / ps_wall))
ratio = nd / ps if ps > 0 else float("inf")
print("  cost ratio         %6.3f x psutil   [<= 0.1: %s]" % (ratio, "met" if ratio <= 0.1 else "MISSED"))
ratio = ndh / ps if ps > 0 else float("inf")
print("  cost ratio, job on npu:0 (+ 8 sim. NPUs)  %6.3f x psutil   [<= 0.1: %s]"
      % (ratio, "met" if ratio <= 0.1 else "MISSED"))
PYEOF

echo "== 4. RSS over a 1-hour synthetic series (same 64-process job, 8 simulated NPUs)"
for secs in 60 600 3600; do
  cputime "$W/rss.$secs" "$ND" watch --pid "$JOB" --for "$secs" --interval 1 --synthetic-clock \
    --root "$ROOT" --quiet --report "$W/rep.$secs"
  pts=$("$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); print(len(d["series"]["points"]))' "$W/rep.$secs/report.json")
  printf "  %5s s synthetic   max RSS %6s MB   (%s points in report.json)\n" "$secs" \
    "$(awk '{printf "%.1f", $3 / 1024}' "$W/rss.$secs")" "$pts"
done
awk '{ mb = $3 / 1024; printf "  1 hour             %.1f MB   [< 20 MB: %s]\n", mb, mb < 20 ? "met" : "MISSED" }' "$W/rss.3600"
kill "$JOB" 2>/dev/null || true
JOB=

echo "== 3. detection latency, the seed case (CPU-only torch, 8 idle NPUs, CANN not sourced)"
for setting in "5 0.5" "20 1"; do
  # shellcheck disable=SC2086 # split "WINDOW INTERVAL" on purpose
  set -- $setting
  "$PY" - "$ND" "$ROOT" "$1" "$2" "$W/lat.json" <<'PYEOF'
import json, os, subprocess, sys, time
nd, root, window, interval, out = sys.argv[1:6]
env = {k: v for k, v in os.environ.items() if not k.startswith("ASCEND_") and k != "PYTHONPATH"}
t0 = time.monotonic()
p = subprocess.Popen([nd, "run", "--root", root, "--window", window, "--interval", interval, "--fail-fast",
                      "--grace", "2", "--json-summary=" + out, "--", "/usr/bin/python3", "tests/fixtures/jobs/train_cnn.py"],
                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
wall = None
for line in p.stderr:
    if wall is None and b"error: The job computes on the CPU" in line:
        wall = time.monotonic() - t0
p.wait()
f = [x for x in json.load(open(out))["findings"] if x["category"] == "cpu-fallback"]
at = f[0]["at_s"] if f else float("nan")
print("  --window %-3s --interval %-3s  cpu-fallback at %5.1f s (sampler clock), alert %5.1f s after launch (wall); "
      "bound window + 2 intervals = %.1f s" % (window, interval, at, wall if wall else float("nan"),
                                                float(window) + 2 * float(interval)))
PYEOF
done

echo "== 5. detection time of the live scenarios (910B host, sampler clock vs the setting that bounds it)"
"$PY" - "$ND" "$ROOT" "$W" "$SIM" <<'PYEOF'
import json, os, signal, subprocess, sys, time
nd, root, w, sim = sys.argv[1:5]
job = "tests/e2e/scenarios/jobs/job.py"
py = "/usr/bin/python3"
cann = {"ASCEND_TOOLKIT_HOME": "/usr/local/Ascend/ascend-toolkit/latest",
        "ASCEND_OPP_PATH": "/usr/local/Ascend/ascend-toolkit/latest/opp"}
base = {k: v for k, v in os.environ.items()
        if not k.startswith("ASCEND_") and k not in ("PYTHONPATH", "RANK", "WORLD_SIZE", "MASTER_ADDR")}
state = os.path.join(w, "state5.ini")
base.update(NPU_DOCTOR_DCMI_LIB=sim + "/libdcmi.so", NPU_DOCTOR_NVML_LIB=w + "/none", ND_SIM_STATE=state)
dev0 = root + "/dev/davinci0"
launch = os.path.join(w, "launch5.sh")
with open(launch, "w") as f:
    f.write("#!/usr/bin/env bash\nexport WORLD_SIZE=2 MASTER_ADDR=127.0.0.1\n"
            "( export RANK=0 %s DEVICE=%s; exec %s %s train 20 ) &\n"
            "( export RANK=1; exec %s %s train 20 ) &\nwait\n"
            % (" ".join("%s=%s" % kv for kv in cann.items()), dev0, py, job, py, job))
os.chmod(launch, 0o755)
# name, util of npu:0, extra env, argv, finding id, window, warmup, hang-after, bound (s)
W, IV, WU, HA = 5.0, 0.5, 2.0, 5.0
cases = [
    ("founding case", 0, {}, [py, job, "train", "30"], "fallback.cpu-fallback", W),
    ("partial fallback", 85, {}, [launch], "fallback.partial", W),
    ("CPU-bound input", 3, {"DEVICE": dev0}, [py, job, "cpu-input", "30"], "idle.input-bound", WU + W),
    ("storage-bound input", 3, {"DEVICE": dev0}, [py, job, "storage", "30"], "idle.storage-bound", WU + W),
    ("hang (thread wait)", 85, {}, [py, job, "hang"], "hang.no-progress", HA),
    ("stopped process", 85, {"DEVICE": dev0}, [py, job, "stop"], "hang.stopped", min(W, HA)),
]
for name, util, extra, argv, fid, bound in cases:
    with open(state, "w") as f:
        f.write("[ascend]\ndevices = 8\nchip_name = 910B3\naicore_util = 0\nhbm_total_mb = 65536\n"
                "[ascend.device.0]\naicore_util = %d\n" % util)
    out = os.path.join(w, "lat5.json")
    ready = os.path.join(w, "ready5")
    if os.path.exists(ready):
        os.unlink(ready)
    env = dict(base, READY=ready, **extra)
    t0 = time.monotonic()
    p = subprocess.Popen([nd, "run", "--root", root, "--window", str(W), "--interval", str(IV), "--warmup", str(WU),
                          "--hang-after", str(HA), "--json-summary=" + out, "--"] + argv,
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    wall = None
    for line in p.stderr:
        if wall is None and b"npu-doctor: " in line and (b"error: " in line or b"warning: " in line):
            wall = time.monotonic() - t0
            # Enough: continue a stopped job (its pid is in READY), then SIGTERM to
            # npu-doctor, which forwards it to the job's process group.
            try:
                os.kill(int(open(ready).read()), signal.SIGCONT)
            except (OSError, ValueError):
                pass
            os.kill(p.pid, signal.SIGTERM)
    p.wait()
    fs = [x for x in json.load(open(out))["findings"] if x["id"] == fid]
    at = fs[0]["at_s"] if fs else float("nan")
    print("  %-20s %-22s at %5.1f s (sampler clock), first alert %5.1f s after launch (wall); bound %4.1f s"
          % (name, fid, at, wall if wall else float("nan"), bound))
PYEOF
