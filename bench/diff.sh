#!/usr/bin/env bash
# Benchmark: `npu-doctor diff` over 1000 snapshots (the goal: a cluster's
# 1000 snapshots compared in seconds). Generates 1000 realistic snapshots from the cluster
# fixture (every node differs in noise; three differ for real), then times
#   - npu-doctor diff (text) and diff --json;
#   - the anchor: a plain Python script that loads the same files and finds
#     the majority value of every flattened key (what one would write by hand).
# Prints medians (wall and CPU seconds) of RUNS runs and the ratios. No
# pass/fail: a benchmark, not a test. CPU seconds are the fairer figure on a
# shared machine.
#   bench/diff.sh [BUILD_DIR] [N_FILES] [RUNS]
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build}
nfiles=${2:-1000}
runs=${3:-3}
nd=$build/npu-doctor
if [ ! -x "$nd" ]; then
  echo "bench/diff.sh: no $nd (build first, or pass the build dir)" >&2
  exit 66
fi
py=/usr/bin/python3
work=$(mktemp -d "${TMPDIR:-/tmp}/nd-bench-diff.XXXXXX")
trap 'rm -rf "$work"' EXIT

"$py" - "$here/tests/fixtures/snapshots/cluster/snap-node-01.json" "$work" "$nfiles" <<'PY'
import copy, json, random, sys
base = json.load(open(sys.argv[1]))
out, n = sys.argv[2], int(sys.argv[3])
rng = random.Random(7)
for i in range(n):
    d = copy.deepcopy(base)
    host = "node-%04d" % i
    d["identity"].update(hostname=host, node_name=host, time="2026-11-30T06:%02d:%02dZ" % (i // 60 % 60, i % 60), rank=i)
    d["env"]["HOSTNAME"] = host
    d["env"]["RANK"] = d["env"]["SLURM_PROCID"] = d["env"]["SLURM_NODEID"] = str(i)
    d["facts"]["host"]["hostname"] = host
    d["facts"]["host"]["memory_available_bytes"] = rng.randrange(10 ** 12, 2 * 10 ** 12)
    for dev in d["devices"]:
        dev["temperature_c"] = rng.randrange(30, 60)
        dev["memory_used_bytes"] = rng.randrange(0, 1 << 34)
    if i == 17:
        d["facts"]["ascend"]["cann"]["version"] = "8.1.RC1"
    if i == 500:
        d["python"]["packages"]["torch"] = "2.2.0"
    if i == 999:
        d["env"]["LD_LIBRARY_PATH"] = d["env"]["LD_LIBRARY_PATH"].replace("/usr/local/Ascend/driver/lib64:", "")
    json.dump(d, open("%s/snap-%s.json" % (out, host), "w"), indent=2)
PY

cat >"$work/anchor.py" <<'PY'
# The hand-written comparator: flatten every file, majority per key, outliers.
import collections, json, sys
def flat(x, p, out):
    if isinstance(x, dict):
        for k, v in x.items():
            flat(v, p + "." + k if p else k, out)
    elif isinstance(x, list):
        for i, v in enumerate(x):
            flat(v, "%s[%d]" % (p, i), out)
    else:
        out[p] = x
files = sys.argv[1:]
vals = collections.defaultdict(dict)
for f in files:
    o = {}
    flat(json.load(open(f)), "", o)
    for k, v in o.items():
        vals[k][f] = json.dumps(v)
n = 0
for k, m in vals.items():
    c = collections.Counter(m.values())
    if len(c) > 1 or len(m) != len(files):
        n += 1
print(n, "keys differ")
PY

# measure CMD...: "wall_s cpu_s" of one run (CPU = user + system of the command).
measure() {
  "$py" -c 'import resource, subprocess, sys, time
t = time.monotonic()
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print("%.3f %.3f" % (time.monotonic() - t, r.ru_utime + r.ru_stime))' "$@"
}

med() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

# timeit CMD...: median wall and median CPU seconds over $runs runs.
timeit() {
  for _ in $(seq "$runs"); do measure "$@"; done >"$work/times"
  echo "$(cut -d' ' -f1 "$work/times" | med) $(cut -d' ' -f2 "$work/times" | med)"
}

echo "bench/diff.sh: $nfiles snapshots ($(du -sh "$work" | cut -f1)), median of $runs runs"
"$nd" diff "$work"/snap-*.json | head -n 8
read -r w_text c_text <<<"$(timeit "$nd" diff "$work"/snap-*.json)"
read -r w_json c_json <<<"$(timeit "$nd" diff --json "$work"/snap-*.json)"
read -r w_py c_py <<<"$(timeit "$py" "$work/anchor.py" "$work"/snap-*.json)"
printf '%-24s %7s %7s\n' "" "wall s" "CPU s"
printf '%-24s %7.2f %7.2f\n' "npu-doctor diff" "$w_text" "$c_text"
printf '%-24s %7.2f %7.2f\n' "npu-doctor diff --json" "$w_json" "$c_json"
printf '%-24s %7.2f %7.2f\n' "python anchor" "$w_py" "$c_py"
printf 'ratio npu-doctor/python: CPU %.2f (text), %.2f (json); wall %.2f (text)\n' \
  "$(echo "$c_text / $c_py" | bc -l)" "$(echo "$c_json / $c_py" | bc -l)" "$(echo "$w_text / $w_py" | bc -l)"
