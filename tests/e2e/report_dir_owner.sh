#!/usr/bin/env bash
# --report DIR as root, when DIR is not root's to trust: a folder of another
# user, or one that others may write in without the sticky bit, lets them
# rearrange what root writes there; run refuses it before the job starts
# with one line and exit 73. The folder is judged again when the report is
# written, so a job that swaps it for a folder of another user (or for
# another user's link) gets no report written there. Sticky shared folders
# and root's own folders still take the report. Needs root and a second
# uid (nobody); skipped otherwise.
. "$(dirname "$0")/lib/assert.sh"
export NO_COLOR=1

if [ "$(id -u)" != 0 ] || ! id nobody >/dev/null 2>&1 || ! command -v setpriv >/dev/null; then
  echo "ok   - skipped: not root, no user nobody or no setpriv"
  exit 0
fi
chmod 755 "$T"
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups -- "$@"; }
one_line() { [ "$(wc -l <"$T/e")" -eq 1 ] && pass "$1: one line" || fail "$1: not one line: $(cat "$T/e")"; }

# A folder of another user.
mkdir "$T/theirs"
chown nobody "$T/theirs"
run_nd "$T/o" "$T/e" run --no-devices --report "$T/theirs" -- touch "$T/started"
expect_rc 73 "--report in another user's folder is refused"
assert_contains "$T/e" "belongs to another user (uid 65534)" "the owner is named"
one_line "another user's folder"
[ -e "$T/started" ] && fail "the job started anyway" || pass "refused before the job starts"
[ -z "$(ls -A "$T/theirs")" ] && pass "nothing written in their folder" || fail "written: $(ls -A "$T/theirs")"

# A folder of root's that anyone may write in, without the sticky bit.
mkdir "$T/open"
chmod 0777 "$T/open"
run_nd "$T/o" "$T/e" run --no-devices --report "$T/open" -- true
expect_rc 73 "--report in a world-writable folder without sticky bit is refused"
assert_contains "$T/e" "others may write in it" "the reason is said"
one_line "world-writable folder"
mkdir "$T/grp"
chmod 0775 "$T/grp"
run_nd "$T/o" "$T/e" run --no-devices --report "$T/grp" -- true
expect_rc 73 "--report in a group-writable folder is refused"

# Sticky shared folders, and root's own, take the report.
mkdir "$T/sticky"
chmod 1777 "$T/sticky"
run_nd "$T/o" "$T/e" run --no-devices --report "$T/sticky" -- true
expect_rc 0 "--report in a sticky shared folder of root's"
[ -s "$T/sticky/report.json" ] && pass "the report is there" || fail "no report: $(cat "$T/e")"
run_nd "$T/o" "$T/e" run --no-devices --report "$T/mine/a/b" -- true
expect_rc 0 "--report in new folders of root's"
[ -s "$T/mine/a/b/report.json" ] && pass "made and written" || fail "no report: $(cat "$T/e")"
[ "$(stat -c %U "$T/mine/a/b")" = root ] && pass "the folders made are root's" || fail "owner $(stat -c %U "$T/mine/a/b")"

# The job swaps the report folder for one of another user's while it runs
# (it sits in their folder, so they may rename it): nothing is written in theirs.
mkdir "$T/pub"
chown nobody "$T/pub"
run_nd "$T/o" "$T/e" run --no-devices --report "$T/pub/rep" -- \
  setpriv --reuid=65534 --regid=65534 --clear-groups -- sh -c "mv '$T/pub/rep' '$T/pub/old' && mkdir '$T/pub/rep'"
[ "$(stat -c %u "$T/pub/rep" 2>/dev/null)" = 65534 ] && pass "the job swapped the folder" || fail "the swap did not happen: $(cat "$T/e")"
[ -z "$(ls -A "$T/pub/rep")" ] && pass "nothing written in the swapped-in folder" || fail "written: $(ls -A "$T/pub/rep")"
assert_contains "$T/e" "cannot write the report" "the failure is said (the job's status stays run's)"
# The same with another user's link in its place.
rm -rf "${T:?}/pub/rep" "${T:?}/pub/old"
mkdir "$T/target"
run_nd "$T/o" "$T/e" run --no-devices --report "$T/pub/rep" -- \
  setpriv --reuid=65534 --regid=65534 --clear-groups -- sh -c "mv '$T/pub/rep' '$T/pub/old' && ln -s '$T/target' '$T/pub/rep'"
[ -L "$T/pub/rep" ] && pass "the job put a link there" || fail "no link: $(cat "$T/e")"
[ -z "$(ls -A "$T/target")" ] && pass "nothing written behind the link" || fail "written behind the link: $(ls -A "$T/target")"

finish
