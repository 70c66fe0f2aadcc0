#!/usr/bin/env bash
# e2e: vendor names stay inside the vendor's own files. Code outside
# src/device/ and src/probe/<vendor>_install.[ch] reads the vendor
# descriptor instead of naming a vendor; the few files whose subject is a
# vendor stack are listed, with a ceiling, in tests/lint/vendor_names.allow.
# shellcheck source=tests/e2e/lib/assert.sh
. "$(dirname "$0")/lib/assert.sh"

LINT="$ND_SRC/tests/lint/vendor_names.py"
if python3 "$LINT" "$ND_SRC" "$ND_SRC/tests/lint/vendor_names.allow" >"$T/out" 2>&1; then
  pass "no vendor name beyond the allow-list"
else
  fail "vendor names outside the vendor files:"; sed 's/^/    | /' "$T/out"
fi

# The check must be able to fail: a planted name in a shared file is caught,
# and a name in a comment is not.
mkdir -p "$T/tree/src/monitor" "$T/tree/src/device"
printf '/* the NVIDIA case */\nint x(const char *v) { return strcmp(v, "nvidia"); }\n' >"$T/tree/src/monitor/x.c"
printf 'int y(void) { return 0; } /* rocm */\n' >"$T/tree/src/monitor/y.c"
printf 'const char *n = "ascend";\n' >"$T/tree/src/device/z.c"
: >"$T/empty.allow"
if python3 "$LINT" "$T/tree" "$T/empty.allow" >"$T/planted" 2>&1; then
  fail "a planted vendor name passed"; sed 's/^/    | /' "$T/planted"
else
  pass "a planted vendor name fails the check"
fi
assert_contains "$T/planted" "src/monitor/x.c: 1 vendor names" "only the name in code counts"
assert_not_contains "$T/planted" "src/monitor/y.c" "a name in a comment is not counted"
assert_not_contains "$T/planted" "src/device/z.c" "device/ may name vendors"
finish
