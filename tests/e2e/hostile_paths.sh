#!/usr/bin/env bash
# Output paths as root, third pass: a link that another user put in a folder
# of their own (not sticky, so the kernel's protected_symlinks rule lets
# root follow it) leads root's output wherever that user likes; such a link
# is refused anywhere in the path, as the last component and above it, for
# every output (snapshot -o, --json-summary, --report, --metrics-file).
# Root's own links and root-owned system links are still followed.
. "$(dirname "$0")/lib/assert.sh"
export NO_COLOR=1
printf 'PATH=/usr/bin:/bin\n' >"$T/job.env"

if [ "$(id -u)" != 0 ] || ! id nobody >/dev/null 2>&1; then
  echo "ok   - skipped: not root or no user nobody"
  exit 0
fi
OTHER=nobody

mkdir -p "$T/theirs" "$T/target"
chown "$OTHER" "$T/theirs"
ln -s "$T/target" "$T/theirs/lnk"
chown -h "$OTHER" "$T/theirs/lnk"
empty() { if [ -z "$(ls -A "$T/target")" ]; then pass "$1: nothing written behind the link"; else fail "$1: written behind the link: $(ls "$T/target")"; rm -rf "${T:?}/target/"*; fi; }

run_nd "$T/o" "$T/e" snapshot --env-file "$T/job.env" -o "$T/theirs/lnk/s.json"
expect_rc 73 "snapshot -o through another user's link in their folder is refused"
assert_contains "$T/e" "symbolic link of another user" "the link is named"
[ "$(wc -l <"$T/e")" -eq 1 ] && pass "one line" || fail "not one line: $(cat "$T/e")"
empty "snapshot -o"
run_nd "$T/o" "$T/e" run --no-devices --json-summary="$T/theirs/lnk/j.json" -- touch "$T/started"
expect_rc 73 "--json-summary through that link is refused"
[ -e "$T/started" ] && fail "the job started anyway" || pass "before the job starts"
empty "--json-summary"
run_nd "$T/o" "$T/e" run --no-devices --report "$T/theirs/lnk/rep" -- true
expect_rc 73 "--report below that link is refused"
empty "--report"
run_nd "$T/o" "$T/e" run --no-devices --metrics-file "$T/theirs/lnk/m.prom" -- true
expect_rc 73 "--metrics-file through that link is refused"
empty "--metrics-file"

# The link as the report folder itself.
run_nd "$T/o" "$T/e" run --no-devices --report "$T/theirs/lnk" -- true
expect_rc 73 "--report naming that link is refused"
empty "--report LINK"

# A link of root's in their folder, and root's own link, are followed.
ln -s "$T/target" "$T/theirs/rootlnk"
run_nd "$T/o" "$T/e" snapshot --env-file "$T/job.env" -o "$T/theirs/rootlnk/s.json"
expect_rc 0 "snapshot -o through root's own link"
[ -s "$T/target/s.json" ] && pass "written where root's link points" || fail "not written"
rm -f "$T/target/s.json"
mkdir -p "$T/a/b"
ln -s "$T/a/b" "$T/ab"
run_nd "$T/o" "$T/e" snapshot --env-file "$T/job.env" -o "$T/ab/../b/s.json"
expect_rc 0 "a path with .. after one's own link"
[ -s "$T/a/b/s.json" ] && pass "written where the kernel would" || fail "not written: $(cat "$T/e")"

finish
