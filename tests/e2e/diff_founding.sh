#!/usr/bin/env bash
# The founding case as a diff: the run that worked (CANN set_env.sh sourced)
# against the run that trained on the CPU (never sourced). The first lines of
# the output name the missing CANN variables and paths; noise stays hidden.
. "$(dirname "$0")/lib/assert.sh"

FX=${ND_FIXTURES:?}/snapshots/founding
TK=/usr/local/Ascend/ascend-toolkit/latest

run_nd "$T/out" "$T/err" diff "$FX/good.json" "$FX/bad.json"
expect_rc 1 "differences found"
head -n 3 "$T/out" >"$T/head3"
assert_contains "$T/head3" "--- $FX/good.json (node-01 at 2026-11-28T09:14:02Z)" "header names the good run"
assert_contains "$T/head3" "vendor stack and environment" "vendor section first"
# Columns are aligned to the longest label: compare with runs of spaces squeezed.
head -n 20 "$T/out" | tr -s ' ' >"$T/head"
for v in ASCEND_HOME_PATH ASCEND_OPP_PATH ASCEND_TOOLKIT_HOME TOOLCHAIN_HOME; do
  assert_contains "$T/head" "$v" "first lines name $v"
done
assert_contains "$T/head" "$TK -> (unset)" "an unset CANN variable reads A -> (unset)"
assert_contains "$T/head" "LD_LIBRARY_PATH missing: /usr/local/Ascend/driver/lib64" "LD_LIBRARY_PATH entry by entry"
assert_contains "$T/head" "missing: $TK/lib64" "the toolkit lib64 is missing"
assert_contains "$T/head" "PYTHONPATH missing: $TK/python/site-packages" "the tbe site-packages is missing"
assert_contains "$T/head" "missing: $TK/opp/built-in/op_impl/ai_core/tbe" "the tbe op_impl path is missing"
# Entries both runs share are not differences.
assert_not_contains "$T/out" "/usr/local/python3.10/lib" "shared LD_LIBRARY_PATH entries not listed"
assert_not_contains "$T/out" "/workspace/llama-finetune/src" "shared PYTHONPATH entries not listed"
# Noise: times, shell variables, ssh, samples.
for n in SHLVL OLDPWD PWD SSH_CONNECTION identity.time temperature memory_available; do
  assert_not_contains "$T/out" "$n" "noise $n hidden"
done
assert_contains "$T/out" "noise differences hidden" "says noise was hidden"
assert_contains "$T/out" "added: env.cann-not-loaded (error)" "the check finding shows up last"
assert_not_contains "$T/out" "<redacted:5d41402a>" "equal secrets are equal (no line for HF_TOKEN)"

run_nd "$T/all" "$T/err" diff --all "$FX/good.json" "$FX/bad.json"
expect_rc 1 "--all"
assert_contains "$T/all" "SHLVL" "--all shows SHLVL"
assert_contains "$T/all" "SSH_CONNECTION" "--all shows SSH_*"
assert_contains "$T/all" "noise (--all)" "--all puts noise last"

run_nd "$T/j" "$T/err" diff --json "$FX/good.json" "$FX/bad.json"
expect_rc 1 "--json"
assert_json "$T/j" 'd["schema"] == "npu-doctor/2" and d["command"] == "diff" and d["findings"] == []' "diff JSON envelope"
assert_json "$T/j" 'd["differences"][0]["category"] == "vendor" and d["differences"][0]["key"].startswith("env.ASCEND")' "most relevant first in JSON"
assert_json "$T/j" 'any(x["key"] == "env.PYTHONPATH" and x["entry"] == "/usr/local/Ascend/ascend-toolkit/latest/python/site-packages" and list(x["values"].values())[1] is None for x in d["differences"])' "PATH entries in JSON"
assert_json "$T/j" 'all("majority" not in x for x in d["differences"])' "two files: no majority"

# docs/cluster.md shows this very output (and the cluster one): keep it true.
(cd "$FX" && "$ND" diff good.json bad.json) >"$T/docs-founding"
(cd "$FX/../cluster" && "$ND" diff snap-*.json) >"$T/docs-cluster"
if python3 - "${ND_SRC:?}/docs/cluster.md" "$T/docs-founding" "$T/docs-cluster" <<'PY'
import sys
doc = open(sys.argv[1]).read()
sys.exit(0 if all(open(f).read() in doc for f in sys.argv[2:]) else 1)
PY
then pass "docs/cluster.md shows the real diff output"; else fail "docs/cluster.md diff examples are stale"; fi

# The same story from real snapshots: one job environment with set_env.sh's
# variables, one without.
cat >"$T/good.env" <<EOF
PATH=$TK/bin:/usr/bin:/bin
ASCEND_TOOLKIT_HOME=$TK
ASCEND_HOME_PATH=$TK
ASCEND_OPP_PATH=$TK/opp
LD_LIBRARY_PATH=/usr/local/Ascend/driver/lib64:$TK/lib64
PYTHONPATH=$TK/python/site-packages:$TK/opp/built-in/op_impl/ai_core/tbe
HOME=/root
SHLVL=1
EOF
cat >"$T/bad.env" <<EOF
PATH=/usr/bin:/bin
LD_LIBRARY_PATH=/usr/local/Ascend/driver/lib64
HOME=/root
SHLVL=4
OLDPWD=/tmp
EOF
"$ND" snapshot --env-file "$T/good.env" -o "$T/good.json" >/dev/null
"$ND" snapshot --env-file "$T/bad.env" -o "$T/bad.json" >/dev/null
run_nd "$T/real" "$T/err" diff "$T/good.json" "$T/bad.json"
expect_rc 1 "real snapshots differ"
sed -n '3,12p' "$T/real" >"$T/realhead"
assert_contains "$T/realhead" "ASCEND_HOME_PATH" "real: ASCEND_HOME_PATH first"
assert_contains "$T/realhead" "missing: $TK/lib64" "real: toolkit lib64 missing"
assert_contains "$T/realhead" "missing: $TK/python/site-packages" "real: tbe path missing"
assert_not_contains "$T/real" "SHLVL" "real: SHLVL is noise"

# Snapshots written before schema npu-doctor/2 (schema1/: the same two runs
# as npu-doctor/1 wrote them, with utilisation under "sample", health as a
# number, tool_version) are read and upgraded: an old run against a new one
# gives the differences the two new documents give, and an old document
# equals its new twin.
S1=${ND_FIXTURES:?}/snapshots/schema1
run_nd "$T/old" "$T/err" diff "$S1/good.json" "$S1/bad.json"
expect_rc 1 "schema 1 snapshots are read"
run_nd "$T/new" "$T/err" diff "$FX/good.json" "$FX/bad.json"
run_nd "$T/mixed" "$T/err" diff "$S1/good.json" "$FX/bad.json"
expect_rc 1 "a schema 1 and a schema 2 snapshot compare"
# The headers name other files and the hidden-noise count depends on the
# keys each schema has; the differences themselves must be the same.
strip() { sed -e '1,2d' -e '$d' "$1"; }
if [ "$(strip "$T/mixed")" = "$(strip "$T/new")" ] && [ "$(strip "$T/old")" = "$(strip "$T/new")" ]; then
  pass "old and new snapshots give the same differences"
else
  fail "old and new snapshots differ in their differences"; diff <(strip "$T/mixed") <(strip "$T/new") | head -20 | sed 's/^/    | /'
fi
run_nd "$T/twin" "$T/err" diff "$S1/good.json" "$FX/good.json"
expect_rc 0 "a schema 1 snapshot equals its schema 2 twin"
run_nd "$T/oldj" "$T/err" diff --json "$S1/good.json" "$S1/bad.json"
assert_json "$T/oldj" 'd["schema"] == "npu-doctor/2" and d["command"] == "diff" and d["version"]' "diff of old snapshots answers in the current schema"

finish
