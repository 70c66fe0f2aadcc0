#!/usr/bin/env bash
# Acceptance: explain --json on every real log in tests/corpus (every
# labels*.tsv there, see tests/corpus/README.md) should put a finding with an
# accepted category first. Prints agreement on the dev half, the check half and
# the whole, the Ascend share, per-category counts, the dev-half misses (the
# check half's are only counted) and the cases
# with no finding at all.
. "$(dirname "$0")/lib/assert.sh"

# Floors, in integer percent, for top-1 agreement. They record what the rules
# achieve today so that a regression fails; raise them as the rules improve.
# Measured on 666 cases, 300 of them (labels-blind*.tsv) collected and
# labelled while nobody wrote rules against them (their dev halves have
# since been read): 88% whole, 76% of the check half (the eighth batch, 34
# cases at 59% on the day it came, lowered both).
MIN_WHOLE_PCT=${MIN_WHOLE_PCT:-88}
MIN_CHECK_PCT=${MIN_CHECK_PCT:-77}

CORPUS=${ND_SRC:?ND_SRC must name the source tree}/tests/corpus
shopt -s nullglob
labels=("$CORPUS"/labels*.tsv)
[ ${#labels[@]} -gt 0 ] || { fail "no labels*.tsv in $CORPUS"; finish; exit 1; }

# One row per case measured: id split category accepted ascend has_error got
# labels-file.
rows=$T/rows.tsv
: >"$rows"
for lf in "${labels[@]}"; do
  while IFS=$'\t' read -r id category accepted _source _cause _fix split stack _rest; do
    # Skip comments, blank lines and a heading row: ids are digits.
    [[ "$id" =~ ^[0-9]+$ ]] || continue
    f="$CORPUS/$id.txt"
    [ -f "$f" ] || continue
    "$ND" explain --json "$f" >"$T/$id.json" 2>"$T/$id.err"
    got=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
f = d.get("findings") or []
print(f[0]["category"] + " " + f[0]["id"] + " " + f[0]["severity"] if f else "none")
' "$T/$id.json" 2>/dev/null || echo "bad-json")
    # The stack column says which vendor stack a case comes from; without
    # it, a case is Ascend when its log names the Ascend stack. The share is
    # a property of the corpus that the collection rules ask for.
    if [ -n "${stack:-}" ]; then
      [ "$stack" = ascend ] && ascend=1 || ascend=0
    elif grep -Eqi 'ascend|torch_npu|torch-npu|npu-smi|hccl|mindspore|aclnn|davinci|\bnpu\b|npu:[0-9]' "$f" ||
       grep -Eq '\bCANN\b|\bacl[A-Z][A-Za-z]+|\bE[EZLHIJ][0-9]{4}\b' "$f"; then
      ascend=1
    else
      ascend=0
    fi
    # A log with an error line deserves at least one finding, even if the
    # rules cannot name its cause.
    if grep -Eq '[Ee]rror|ERROR|Traceback|Exception|FAILED|[Ff]ailed|[Ff]atal' "$f"; then
      has_error=1
    else
      has_error=0
    fi
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$id" "${split:-dev}" "$category" "$accepted" \
      "$ascend" "$has_error" "$got" "$(basename "$lf")" >>"$rows"
  done <"$lf"
done

# Summary; the last line carries the figures the asserts below use.
python3 - "$rows" >"$T/summary" <<'PY'
import sys
from collections import defaultdict
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if l.strip()]
tot = defaultdict(int); hit = defaultdict(int)
cat_tot = defaultdict(int); cat_hit = defaultdict(int)
# Per labels file: each collector's cases show how well the rules carry over
# to logs gathered apart from the rule writers.
file_tot = defaultdict(int); file_hit = defaultdict(int)
ascend = 0; none = []; none_err = []; misses = []
check_ids = {r[0] for r in rows if r[1] == "check"}
for id_, split, cat, acc, asc, err, got, lfile in rows:
    first = got.split(" ")[0]
    ok = first in acc.split(",")
    file_tot[lfile] += 1; file_hit[lfile] += ok
    for k in (split, "whole"):
        tot[k] += 1; hit[k] += ok
    cat_tot[cat] += 1; cat_hit[cat] += ok
    ascend += asc == "1"
    if first == "none":
        none.append(id_)
        if err == "1":
            none_err.append(id_)
    # The check half is only measured: its misses are counted, not shown, so
    # that nobody tunes a rule to what a check case expects or got.
    if not ok and split != "check":
        misses.append(f"miss {id_} ({split}): expected one of [{acc}], got {got}")
def pct(k):
    return (100 * hit[k] // tot[k]) if tot[k] else 100
for k in ("dev", "check", "whole"):
    print(f"top-1 agreement {k}: {hit[k]}/{tot[k]} ({pct(k)}%)")
for lfile in sorted(file_tot):
    print(f"top-1 agreement {lfile}: {file_hit[lfile]}/{file_tot[lfile]}"
          f" ({100 * file_hit[lfile] // file_tot[lfile]}%)")
n = len(rows)
print(f"Ascend share: {ascend}/{n} ({100 * ascend // n if n else 0}%)")
print("per category (labelled: hits/cases):")
for c in sorted(cat_tot):
    print(f"  {c:<17} {cat_hit[c]}/{cat_tot[c]}")
for m in misses:
    print(m)
print(f"check-half misses: {tot['check'] - hit['check']} (only counted)")
none_dev = [i for i in none if i not in check_ids]
print(f"no finding at all: {len(none)}, of them in the dev half: {len(none_dev)}"
      + (f" ({' '.join(none_dev)})" if none_dev else ""))
print(f"no finding although the log has an error line: {len(none_err)}"
      + (f" ({' '.join(none_err)})" if none_err else ""))
print("FIGURES", n, pct("whole"), pct("check"), tot["check"], len(none_err), " ".join(none_err))
PY
grep -v '^FIGURES' "$T/summary"
read -r _ n whole_pct check_pct check_n none_err none_err_ids < <(grep '^FIGURES' "$T/summary")

if [ "$n" -ge 150 ]; then pass "$n corpus cases measured (at least 150)"; else fail "only $n corpus cases (150 wanted)"; fi
ascend_pct=$(sed -n 's/^Ascend share: [0-9]*\/[0-9]* (\([0-9]*\)%)$/\1/p' "$T/summary")
if [ "${ascend_pct:-0}" -ge 60 ]; then pass "Ascend share ${ascend_pct}% is at least 60%"; else fail "Ascend share ${ascend_pct:-0}% is below 60%"; fi
if [ "$whole_pct" -ge "$MIN_WHOLE_PCT" ]; then
  pass "whole agreement ${whole_pct}% is at least ${MIN_WHOLE_PCT}%"
else
  fail "whole agreement ${whole_pct}% is below ${MIN_WHOLE_PCT}%"
fi
if [ "$check_n" -eq 0 ] || [ "$check_pct" -ge "$MIN_CHECK_PCT" ]; then
  pass "check agreement ${check_pct}% is at least ${MIN_CHECK_PCT}%"
else
  fail "check agreement ${check_pct}% is below ${MIN_CHECK_PCT}%"
fi
if [ "$none_err" -eq 0 ]; then
  pass "every log with an error line gets at least one finding"
else
  fail "$none_err logs with an error line get no finding at all: ${none_err_ids:-}"
fi

# One thread gives at most one case (tests/corpus/README.md): two cases from
# the same source would count one diagnosis twice, and could put a log a rule
# writer read into the check half.
# A GitHub thread is one source however it is written: "owner/repo#N", its
# issues/ or pull/ URL with or without a comment anchor, and a repository
# renamed only in case or dashes (LLaMA-Factory, LlamaFactory).
dups=$(cat "${labels[@]}" | python3 -c '
import re, sys
from collections import Counter
def key(src):
    m = re.match(r"https?://github\.com/([^/]+)/([^/#?]+)/(?:issues|pull|discussions)/([0-9]+)", src) or \
        re.match(r"([^/\s]+)/([^/#\s]+)#([0-9]+)$", src)
    if m:
        return "%s/%s#%s" % (m.group(1).lower(), re.sub(r"[-_.]", "", m.group(2).lower()), m.group(3))
    return src
seen = Counter()
for line in sys.stdin:
    f = line.rstrip("\n").split("\t")
    if len(f) > 3 and f[0].isdigit():
        seen[key(f[3])] += 1
print(" ".join(sorted(k for k, n in seen.items() if n > 1)))
')
if [ -z "$dups" ]; then pass "no source gives more than one case"; else fail "sources with more than one case: $dups"; fi

# Benign cases must come out as warnings, not errors: 006 is loss-scale
# calibration (labelled numerics, harmless).
if [ -f "$CORPUS/006.txt" ]; then
  run_nd "$T/006.json" "$T/006.err" explain --json "$CORPUS/006.txt"
  expect_rc 1 "early loss-scale overflows give exit 1 (warnings)"
  assert_json "$T/006.json" 'd["findings"][0]["severity"] == "warning"' "006 is a warning"
fi
finish
