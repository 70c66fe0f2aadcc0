#!/usr/bin/env bash
# Healthy logs stay quiet: real output of runs that worked (tests/corpus/healthy,
# README.md there says where each came from) gets no error-severity finding
# and no log-shape finding from explain. The log-shape analysis reads the
# shape of a log with no error line; these are the logs it must leave alone.
. "$(dirname "$0")/lib/assert.sh"

DIR=${ND_SRC:?ND_SRC must name the source tree}/tests/corpus/healthy
shopt -s nullglob
logs=("$DIR"/*.txt)
if [ ${#logs[@]} -ge 15 ]; then pass "${#logs[@]} healthy logs (at least 15)"; else fail "only ${#logs[@]} healthy logs (15 wanted)"; fi

for f in "${logs[@]}"; do
  name=$(basename "$f")
  grep -q -- "$name" "$DIR/README.md" || fail "$name is not described in healthy/README.md"
  "$ND" explain --json "$f" >"$T/out.json" 2>"$T/err"
  rc=$?
  if [ "$rc" -ge 2 ]; then
    fail "$name: exit $rc (an error finding, or explain failed): $(head -c 300 "$T/err")"
    continue
  fi
  bad=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(" ".join(f["id"] for f in d.get("findings", [])
               if f["severity"] == "error" or f["id"].startswith("shape.")))
' "$T/out.json" 2>&1)
  if [ -z "$bad" ]; then pass "$name: no error and no log-shape finding"; else fail "$name: got $bad"; fi
done
finish
