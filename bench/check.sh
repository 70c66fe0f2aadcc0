#!/usr/bin/env bash
# bench/check.sh: how fast `npu-doctor check` is against the anchor tool,
# PyTorch's own `python3 -m torch.utils.collect_env`, measured in the same
# run on Debian's python3-torch. Prints medians and ratios; passes or fails
# nothing (targets: level 1 <= 1/20 of collect_env, level 2 <= 0.8).
set -eu
cd "$(dirname "$0")/.."
ND=${ND_BIN:-build/npu-doctor}
PY=${ND_BENCH_PYTHON:-/usr/bin/python3}
RUNS=${RUNS:-10}
[ -x "$ND" ] || { echo "bench/check.sh: build first ($ND missing)" >&2; exit 66; }
"$PY" -c 'import torch' 2>/dev/null || { echo "bench/check.sh: $PY has no torch (apt-get install python3-torch)" >&2; exit 66; }
command -v hyperfine >/dev/null || { echo "bench/check.sh: hyperfine is not installed" >&2; exit 66; }

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# check exits 1 or 2 when it finds problems: that is its answer, not a failed run (-i).
hyperfine -i -N --warmup 2 --runs "$RUNS" --export-json "$out/r.json" \
  -n collect_env "$PY -m torch.utils.collect_env" \
  -n check-l1 "$ND check --python $PY" \
  -n check-l2 "$ND check --level 2 --python $PY" >/dev/null

"$PY" - "$out/r.json" <<'PYEOF'
import json, statistics, sys
r = {x["command"]: statistics.median(x["times"]) for x in json.load(open(sys.argv[1]))["results"]}
ce = r["collect_env"]
print("%-34s %10s %10s %s" % ("", "median", "ratio", "target"))
print("%-34s %8.1f ms" % ("python3 -m torch.utils.collect_env", ce * 1000))
for name, label, target in (("check-l1", "npu-doctor check (level 1)", 1 / 20), ("check-l2", "npu-doctor check --level 2", 0.8)):
    ratio = r[name] / ce
    verdict = "met" if ratio <= target else "MISSED"
    print("%-34s %8.1f ms %9.3f  <= %.3f %s" % (label, r[name] * 1000, ratio, target, verdict))
PYEOF
