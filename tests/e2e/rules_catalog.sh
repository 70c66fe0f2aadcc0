#!/usr/bin/env bash
# Catalogue tables (*.tsv) end to end: the shipped catalogues lint clean and
# are loaded, a broken table is refused with file:line (exit 64), a site
# table in --rules adds and overrides rows, and rules list --summary counts
# them per family.
. "$(dirname "$0")/lib/assert.sh"

run_nd "$T/out" "$T/err" rules lint "${ND_SRC:?}/rules/catalog"
expect_rc 0 "shipped catalogues lint clean"

run_nd "$T/sum.json" "$T/err" rules list --summary --json
expect_rc 0 "rules list --summary --json"
assert_json "$T/sum.json" 'd["catalogue_rows"] >= 500' "at least 500 catalogue rows compiled in"
assert_json "$T/sum.json" 'sum(g["rules"] for g in d["summary"]) == d["total"]' "families add up to the total"
assert_json "$T/sum.json" 'any(g["family"] == "CANN runtime return codes" and g["vendor"] == "ascend" for g in d["summary"])' "runtime family listed"
run_nd "$T/sum.txt" "$T/err" rules list --summary
assert_contains "$T/sum.txt" "catalogue rows" "text summary names the catalogue rows"
# A family name long enough to push the table past 80 columns makes it wrap
# on every terminal; the names are titles, not descriptions.
if awk 'length($0) > 80 { bad = 1 } END { exit !bad }' "$T/sum.txt"; then
  fail "rules list --summary has lines over 80 columns"
else
  pass "rules list --summary fits in 80 columns"
fi

# A compiled-in row explains its code in the printed form.
echo 'RuntimeError: NPU function error: c10_npu::acl::AclrtSynchronizeStreamWithTimeout(stream), error code is 507054' >"$T/ecc.log"
run_nd "$T/ecc.json" "$T/err" explain --json "$T/ecc.log"
assert_json "$T/ecc.json" 'd["findings"][0]["id"] == "ascend.rt.507054" and d["findings"][0]["category"] == "device-fault"' "HBM ECC code from the runtime table"
# ... and never as a bare number.
echo 'step 507054 loss 1.25' >"$T/num.log"
run_nd "$T/num.json" "$T/err" explain --json "$T/num.log"
assert_json "$T/num.json" 'all(not f["id"].startswith("ascend.rt.") for f in d["findings"])' "a bare number is not a runtime code"

mkdir -p "$T/bad"
printf '%s\n' '#! id-prefix = site' '#! vendor = amd' 'code	title	fix	example' \
  '42	T	F	error 42' 'E1	T' >"$T/bad/site.tsv"
run_nd "$T/out" "$T/err" rules lint "$T/bad"
expect_rc 64 "broken catalogue: exit 64"
assert_contains "$T/out" "site.tsv:2: vendor 'amd'" "bad default with file:line"
assert_contains "$T/out" "site.tsv:4: numeric code 42 needs a template or a pattern" "numeric code without context"
assert_contains "$T/out" "site.tsv:5: 2 fields, the header has 4" "field count"
run_nd "$T/out" "$T/err" explain --rules "$T/bad" "$T/ecc.log"
expect_rc 64 "explain refuses a broken --rules table"

# A site table: a new row, and a row that overrides a compiled-in id.
mkdir -p "$T/site"
printf '%s\n' '#! id-prefix = ascend.rt' '#! vendor = ascend' '#! category = config' '#! severity = warning' \
  '#! template = error code is {code}([^0-9]|$)' \
  'code	title	fix	example' \
  '507054	Site override: call the hardware team	page hw-oncall	error code is 507054' \
  '999001	Site quota code	clean the scratch space	error code is 999001' >"$T/site/site.tsv"
run_nd "$T/out" "$T/err" rules lint "$T/site/site.tsv"
expect_rc 0 "site table lints clean"
run_nd "$T/o.json" "$T/err" explain --json --rules "$T/site" "$T/ecc.log"
assert_json "$T/o.json" '[f["title"] for f in d["findings"] if f["id"] == "ascend.rt.507054"] == ["Site override: call the hardware team"]' "site row replaces the compiled-in row"
echo 'job failed, error code is 999001' >"$T/q.log"
run_nd "$T/q.json" "$T/err" explain --json --rules "$T/site" "$T/q.log"
expect_rc 1 "warning from the site row"
assert_json "$T/q.json" 'd["findings"][0]["fix"] == ["clean the scratch space"]' "site row's fix"
run_nd "$T/out" "$T/err" rules test --rules "$T/site"
expect_rc 0 "rules test with the site table"
finish
