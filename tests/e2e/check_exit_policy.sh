#!/usr/bin/env bash
# check's exit status for entrypoints and prologs: --quiet fails on errors
# only, --strict and --fail-on warning bring warnings back, --fail-on never
# never fails; without these options the codes stay 0/1/2.
. "$(dirname "$0")/lib/assert.sh"

R=$ND_FIXTURES/roots
E=$ND_FIXTURES/env
WARN=(--root "$R/cuda-host" --env-file "$E/cuda-torch-too-new.env")     # warnings only
ERR=(--root "$R/ascend-910b-cann80" --env-file "$E/plain.env")          # an error
OK=(--root "$R/ascend-910b-cann80" --env-file "$E/ascend-cann80-loaded.env")

run_nd "$T/o" "$T/e" check "${WARN[@]}"; expect_rc 1 "warnings, default: exit 1"
run_nd "$T/o" "$T/e" check "${WARN[@]}" --quiet; expect_rc 0 "warnings, --quiet: exit 0"
assert_contains "$T/o" "warning" "--quiet still prints the warnings"
run_nd "$T/o" "$T/e" check "${WARN[@]}" --quiet --strict; expect_rc 1 "warnings, --quiet --strict: exit 1"
run_nd "$T/o" "$T/e" check "${WARN[@]}" --fail-on error; expect_rc 0 "warnings, --fail-on error: exit 0"
run_nd "$T/o" "$T/e" check "${WARN[@]}" --fail-on warning; expect_rc 1 "warnings, --fail-on warning: exit 1"
run_nd "$T/o" "$T/e" check "${WARN[@]}" --quiet --fail-on warning; expect_rc 1 "--fail-on wins over --quiet"
run_nd "$T/o" "$T/e" check "${WARN[@]}" --fail-on never; expect_rc 0 "warnings, --fail-on never: exit 0"
run_nd "$T/o" "$T/e" check "${WARN[@]}" --json --quiet; expect_rc 0 "--json --quiet: same policy"

run_nd "$T/o" "$T/e" check "${ERR[@]}"; expect_rc 2 "errors, default: exit 2"
run_nd "$T/o" "$T/e" check "${ERR[@]}" --quiet; expect_rc 2 "errors, --quiet: exit 2"
run_nd "$T/o" "$T/e" check "${ERR[@]}" --fail-on error; expect_rc 2 "errors, --fail-on error: exit 2"
run_nd "$T/o" "$T/e" check "${ERR[@]}" --fail-on warning; expect_rc 2 "errors, --fail-on warning: exit 2"
run_nd "$T/o" "$T/e" check "${ERR[@]}" --fail-on never; expect_rc 0 "errors, --fail-on never: exit 0"
assert_contains "$T/o" "[env.cann-not-loaded]" "--fail-on never still reports the error"

run_nd "$T/o" "$T/e" check "${OK[@]}" --fail-on warning; expect_rc 0 "healthy host: exit 0"

run_nd "$T/o" "$T/e" check --fail-on sometimes; expect_rc 64 "bad --fail-on value"
assert_contains "$T/e" "--fail-on must be error, warning or never"

# The entrypoint recipe the README gives is the one --help gives, and it works.
run_nd "$T/o" "$T/e" check --help
assert_contains "$T/o" "npu-doctor check --quiet || exit 1" "--help gives the entrypoint recipe"
assert_contains "$ND_SRC/README.md" "npu-doctor check --quiet || exit 1" "README gives the same recipe"
assert_contains "$T/o" "--fail-on WHAT" "--help lists --fail-on"
assert_contains "$T/o" "--strict" "--help lists --strict"
if "$ND" check "${WARN[@]}" --quiet >/dev/null || exit 1; then pass "recipe passes a node with warnings only"; else fail "recipe blocked on warnings"; fi
finish
