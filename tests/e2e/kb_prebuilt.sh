#!/usr/bin/env bash
# The built-in rules come precompiled in the binary: with an empty cache
# (a fresh container) explain compiles nothing and writes no cache file,
# and still names the cause. A site rule on top is compiled once and cached.
# A build without the database (a cross build) says so in --version; then
# the first load compiles and caches, which is what this test checks instead.
. "$(dirname "$0")/lib/assert.sh"

mkdir -p "$T/cache"
run_nd "$T/v" "$T/e" --version
printf 'RuntimeError: NPU out of memory. Tried to allocate 2.00 GiB (NPU 0; 60.97 GiB total capacity)\n' >"$T/oom.log"
NPU_DOCTOR_CACHE_DIR=$T/cache run_nd "$T/out" "$T/err" explain --json "$T/oom.log"
expect_rc 2 "explain with an empty cache"
assert_json "$T/out" 'd["findings"][0]["category"] == "device-oom"' "the cause is named"
n=$(find "$T/cache" -name 'rules-*.hsdb' | wc -l)
if grep -q 'rules database: built in' "$T/v"; then
  [ "$n" -eq 0 ] && pass "nothing compiled: no cache file written" || fail "the built-in rules were compiled again ($n cache files)"
else
  [ "$n" -eq 1 ] && pass "no built-in database: compiled once and cached" || fail "expected 1 cache file, found $n"
fi

mkdir -p "$T/site"
cat >"$T/site/site.rules" <<'R'
[site.quota]
category = config
severity = warning
pattern  = SITE-QUOTA-EXCEEDED
title    = Site quota exceeded
fix      = clean up /scratch
example  = SITE-QUOTA-EXCEEDED
R
echo 'SITE-QUOTA-EXCEEDED for user x' >"$T/site.log"
NPU_DOCTOR_CACHE_DIR=$T/cache run_nd "$T/out" "$T/err" explain --json --rules "$T/site" "$T/site.log"
expect_rc 1 "explain with a site rule"
assert_json "$T/out" 'd["findings"][0]["id"] == "site.quota"' "the site rule matches"
m=$(find "$T/cache" -name 'rules-*.hsdb' | wc -l)
[ "$m" -eq $((n + 1)) ] && pass "the site rule set was compiled and cached" || fail "cache files: $n before, $m after"
finish
