#!/usr/bin/env bash
# rules lint / list / test and --rules: problems as file:line, exit 64 for a
# broken rule file, extra rule directories used by explain.
. "$(dirname "$0")/lib/assert.sh"

# The shipped rules lint clean, and every example passes.
run_nd "$T/out" "$T/err" rules lint "${ND_SRC:?}/rules"
expect_rc 0 "shipped rules lint clean"
run_nd "$T/out" "$T/err" rules test
expect_rc 0 "rules test passes"
assert_contains "$T/out" "0 failures"

run_nd "$T/out" "$T/err" rules list --json
expect_rc 0 "rules list --json"
assert_json "$T/out" 'len(d["rules"]) >= 100' "at least 100 rules"
assert_json "$T/out" 'all(r["category"] in ("env-not-loaded","version-mismatch","no-device","unsupported-op","device-oom","host-oom","distributed","numerics","device-fault","cpu-fallback","input-bound","hang","config") for r in d["rules"])' "categories from the documented list"
run_nd "$T/out" "$T/err" rules list
assert_contains "$T/out" "env.cann-not-loaded.tbe" "text list shows ids"

mkdir -p "$T/bad"
cat >"$T/bad/broken.rules" <<'R'
# a broken rule file
[site.one]
category = device-oom
severity = error
pattern  = Tried to allocate (
title    = one
fix      = something
colour   = blue
example  = Tried to allocate

[site.two]
severity = error
pattern  = two happened
title    = two
example  = two happened

[site.one]
category = config
pattern  = again
title    = dup
fix      = x
example  = again
R
run_nd "$T/out" "$T/err" rules lint "$T/bad"
expect_rc 64 "broken rule file: exit 64"
assert_contains "$T/out" "broken.rules:5: [site.one] pattern does not compile" "bad pattern with file:line"
assert_contains "$T/out" "broken.rules:8: unknown key 'colour'" "unknown key with file:line"
assert_contains "$T/out" "broken.rules:11: [site.two] has no category" "missing category with file:line"
assert_contains "$T/out" "[site.two] has no fix" "missing fix"
assert_contains "$T/out" "broken.rules:17: duplicate rule id [site.one]" "duplicate id with file:line"

# explain refuses a broken --rules directory with the same file:line error.
echo 'RuntimeError: CUDA out of memory' >"$T/log"
run_nd "$T/out" "$T/err" explain --rules "$T/bad" "$T/log"
expect_rc 64 "explain with broken --rules"
assert_contains "$T/err" "broken.rules:" "error names the rule file"

# A valid extra rule is loaded and wins for its own message.
mkdir -p "$T/good"
cat >"$T/good/site.rules" <<'R'
[site.quota]
category = config
severity = warning
pattern  = SITE-QUOTA-EXCEEDED
capture  = who: user=([a-z]+)
title    = Site quota exceeded for {who|someone}
cause    = The cluster's storage quota ran out.
fix      = clean up /scratch/{who|you}
example  = SITE-QUOTA-EXCEEDED user=alice
counter  = SITE-QUOTA-OK
R
run_nd "$T/out" "$T/err" rules lint "$T/good/site.rules"
expect_rc 0 "valid extra rule lints clean"
echo 'job: SITE-QUOTA-EXCEEDED user=bob' >"$T/log2"
run_nd "$T/out" "$T/err" explain --json --rules "$T/good" "$T/log2"
expect_rc 1 "warning from the extra rule"
assert_json "$T/out" 'd["findings"][0]["id"] == "site.quota" and d["findings"][0]["title"] == "Site quota exceeded for bob"' "capture fills the title"
assert_json "$T/out" 'd["findings"][0]["fix"][0] == "clean up /scratch/bob"' "capture fills the fix"

# /etc/npu-doctor/rules.d under --root.
mkdir -p "$T/root/etc/npu-doctor/rules.d"
cp "$T/good/site.rules" "$T/root/etc/npu-doctor/rules.d/"
run_nd "$T/out" "$T/err" explain --json --root "$T/root" "$T/log2"
assert_json "$T/out" 'd["findings"][0]["id"] == "site.quota"' "rules.d under the root is loaded"

# A copy of the built-in rules under the same relative name ("--rules rules"
# from a folder that holds one) overrides them; it is not a duplicate.
mkdir -p "$T/site"
cp -r "$ND_SRC/rules" "$T/site/rules"
sed -i "s/^title    = NPU out of memory.*/title    = SITE-OVERRIDDEN OOM title/" "$T/site/rules/ascend-runtime.rules"
echo 'RuntimeError: NPU out of memory. Tried to allocate 2.00 GiB' >"$T/log3"
(cd "$T/site" && "$ND" explain --json --rules rules "$T/log3" >"$T/out" 2>"$T/err"); rc=$?
expect_rc 2 "--rules rules (same relative name as the built-in) loads"
assert_not_contains "$T/err" "duplicate rule id" "no duplicate-id error for an override by name"
assert_json "$T/out" 'd["findings"][0]["title"] == "SITE-OVERRIDDEN OOM title"' "the copy's rule replaced the built-in one"

# A capture whose value group sits inside another group would put the inner
# alternative ("drv") in the title instead of the name: lint refuses it.
mkdir -p "$T/nestcap"
cat >"$T/nestcap/n.rules" <<'R'
[site.sym]
category = version-mismatch
severity = error
pattern  = SITE-SYM missing: (drv|hal)[A-Z]
capture  = sym: missing: ((drv|hal)[A-Za-z]+)
title    = {sym|a symbol} is missing
fix      = upgrade
example  = SITE-SYM missing: drvGetDevNum
R
run_nd "$T/out" "$T/err" rules lint "$T/nestcap"
expect_rc 64 "a capture with a nested value group: exit 64"
assert_contains "$T/out" "n.rules:5: [site.sym] capture takes its value from a group inside another group" "nested value group named with file:line"
sed -i 's/((drv|hal)\[A-Za-z\]+)/(drv[A-Za-z]+|hal[A-Za-z]+)/' "$T/nestcap/n.rules"
run_nd "$T/out" "$T/err" rules lint "$T/nestcap"
expect_rc 0 "the flat value group lints clean"
echo 'SITE-SYM missing: halGetDeviceInfo' >"$T/log4"
run_nd "$T/out" "$T/err" explain --json --rules "$T/nestcap" "$T/log4"
assert_json "$T/out" 'd["findings"][0]["title"] == "halGetDeviceInfo is missing"' "the title carries the whole symbol"

run_nd "$T/out" "$T/err" rules frobnicate
expect_rc 64 "unknown subcommand"
run_nd "$T/out" "$T/err" rules lint "$T/nope"
expect_rc 66 "lint of a missing path"
mkdir -p "$T/norules"
run_nd "$T/out" "$T/err" rules lint "$T/norules"
expect_rc 66 "lint of a directory without rule files"
assert_contains "$T/err" "no *.rules files"
finish
