#!/usr/bin/env bash
# Acceptance: explain --json on every real log in ../shared/corpus must put a
# finding with an accepted category first, in at least 90% of the cases.
. "$(dirname "$0")/lib/assert.sh"

CORPUS=${ND_SHARED:?ND_SHARED must point at ../shared}/corpus
[ -f "$CORPUS/labels.tsv" ] || { fail "no corpus at $CORPUS"; finish; exit 1; }

total=0
hits=0
while IFS=$'\t' read -r id _ accepted _; do
  case "$id" in ''|\#*) continue ;; esac
  f="$CORPUS/$id.txt"
  [ -f "$f" ] || continue
  total=$((total + 1))
  "$ND" explain --json "$f" >"$T/$id.json" 2>"$T/$id.err"
  got=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
f = d.get("findings") or []
print(f[0]["category"] + " " + f[0]["id"] + " " + f[0]["severity"] if f else "none")
' "$T/$id.json" 2>/dev/null || echo "bad-json")
  first=${got%% *}
  if [[ ",$accepted," == *",$first,"* ]]; then
    hits=$((hits + 1))
  else
    echo "miss $id: expected one of [$accepted], got $got"
  fi
done <"$CORPUS/labels.tsv"

echo "top-1 agreement: $hits/$total"
if [ "$total" -gt 0 ] && [ $((hits * 100)) -ge $((total * 90)) ]; then
  pass "top-1 agreement $hits/$total is at least 90%"
else
  fail "top-1 agreement $hits/$total is below 90%"
fi

# Benign cases must come out as warnings, not errors: 006 is loss-scale
# calibration (labelled numerics, harmless).
if [ -f "$CORPUS/006.txt" ]; then
  run_nd "$T/006.json" "$T/006.err" explain --json "$CORPUS/006.txt"
  expect_rc 1 "early loss-scale overflows give exit 1 (warnings)"
  assert_json "$T/006.json" 'd["findings"][0]["severity"] == "warning"' "006 is a warning"
fi
finish
