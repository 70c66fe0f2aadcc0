#!/usr/bin/env bash
# bench/rules_load.sh: how long loading a large site rule set takes. Writes
# ND_BENCH_RULES generated rules (default 100000, in files of 10000) and
# times `npu-doctor rules lint` on them (parse, duplicate-id search, every
# check but the database build), with grep -c over the same files as the
# anchor measured in the same run. Prints seconds and the ratio; passes or
# fails nothing. Target: 100k rules in < 2 s.
# ND_BENCH_FULL_LOAD=1 also times a whole load (`explain --rules`): the
# first builds the vectorscan database for the new patterns (minutes for
# 100k, then cached), the second reads it from the cache.
set -eu
cd "$(dirname "$0")/.."
ND=${ND_BIN:-build/npu-doctor}
N=${ND_BENCH_RULES:-100000}
[ -x "$ND" ] || { echo "bench/rules_load.sh: build first ($ND missing)" >&2; exit 66; }
dir=$(mktemp -d /tmp/nd-bench-rules.XXXXXX)
trap 'rm -rf "$dir"' EXIT
python3 - "$dir" "$N" <<'PYEOF'
import os, sys
d, n = sys.argv[1], int(sys.argv[2])
per = 10000
for f in range((n + per - 1) // per):
    with open(os.path.join(d, "gen%03d.rules" % f), "w") as out:
        for i in range(f * per, min(n, (f + 1) * per)):
            out.write("[site.gen-%d]\ncategory = config\nseverity = warning\npattern = GENERR%06d happened\n"
                      "title = generated rule %d\nfix = nothing to do\nexample = GENERR%06d happened here\n\n"
                      % (i, i, i, i))
PYEOF
python3 - "$ND" "$dir" "$N" <<'PYEOF'
import os, resource, subprocess, sys, glob
nd, d, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
def cpu(argv):
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime), p.returncode
nd_t, rc = min(cpu([nd, "rules", "lint", d]) for _ in range(3))
gr_t, _ = min(cpu(["grep", "-c", "^\\[", *sorted(glob.glob(d + "/*.rules"))]) for _ in range(3))
print("%d generated rules" % n)
print("%-28s %8.2f cpu s  exit %d" % ("npu-doctor rules lint", nd_t, rc))
print("%-28s %8.2f cpu s" % ("grep -c '^\\[' (anchor)", gr_t))
print("ratio lint/grep: %.1fx; target: %d rules < 2 s" % (nd_t / max(gr_t, 1e-3), n))
if os.environ.get("ND_BENCH_FULL_LOAD") == "1":
    env = dict(os.environ, NPU_DOCTOR_CACHE_DIR=os.path.join(d, "cache"))
    os.makedirs(env["NPU_DOCTOR_CACHE_DIR"], exist_ok=True)
    log = os.path.join(d, "empty.log")
    open(log, "w").write("nothing\n")
    for what in ("load, database built", "load, database cached"):
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run([nd, "explain", "--rules", d, log], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        print("%-28s %8.2f cpu s" % (what, (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)))
PYEOF
