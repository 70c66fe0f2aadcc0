#!/usr/bin/env bash
# Single output files as root (snapshot -o, also through its %j expansion,
# run --json-summary=FILE, run --metrics-file), judged as --report DIR is
# (report_dir_owner.sh): a folder of another user, or one that others may
# write in without the sticky bit, is theirs to rearrange under the file
# root writes, so it is refused with one line and exit 73 and nothing is
# written there. Sticky shared folders and root's own folders still take
# the file. A %j that expands to ".." (a job's environment is its user's)
# does not climb out of the folder named. Needs root and a second uid
# (nobody); skipped otherwise.
. "$(dirname "$0")/lib/assert.sh"
export NO_COLOR=1

if [ "$(id -u)" != 0 ] || ! id nobody >/dev/null 2>&1; then
  echo "ok   - skipped: not root or no user nobody"
  exit 0
fi
chmod 755 "$T"
one_line() { [ "$(wc -l <"$T/e")" -eq 1 ] && pass "$1: one line" || fail "$1: not one line: $(cat "$T/e")"; }
empty() { [ -z "$(ls -A "$1")" ] && pass "$2: nothing written" || fail "$2: written: $(ls -A "$1")"; }

mkdir "$T/theirs" "$T/open" "$T/grp" "$T/sticky" "$T/mine"
chown nobody "$T/theirs"
chmod 0777 "$T/open"
chmod 0775 "$T/grp"
chmod 1777 "$T/sticky"

# snapshot -o
run_nd "$T/o" "$T/e" snapshot -o "$T/theirs/s.json"
expect_rc 73 "snapshot -o in another user's folder is refused"
assert_contains "$T/e" "belongs to another user (uid 65534)" "the owner is named"
one_line "snapshot -o, another user's folder"
empty "$T/theirs" "snapshot -o, another user's folder"
run_nd "$T/o" "$T/e" snapshot -o "$T/open/s.json"
expect_rc 73 "snapshot -o in a world-writable folder without sticky bit is refused"
assert_contains "$T/e" "others may write in it" "the reason is said"
one_line "snapshot -o, world-writable folder"
empty "$T/open" "snapshot -o, world-writable folder"
run_nd "$T/o" "$T/e" snapshot -o "$T/grp/s.json"
expect_rc 73 "snapshot -o in a group-writable folder is refused"
run_nd "$T/o" "$T/e" snapshot -o "$T/sticky/s.json"
expect_rc 0 "snapshot -o in a sticky shared folder of root's"
[ -s "$T/sticky/s.json" ] && pass "written in the sticky folder" || fail "not written: $(cat "$T/e")"
run_nd "$T/o" "$T/e" snapshot -o "$T/mine/s.json"
expect_rc 0 "snapshot -o in root's own folder"
# The expansion: %j from the job's environment.
mkdir -p "$T/mine/jobs/x"
SLURM_JOB_ID=.. run_nd "$T/o" "$T/e" snapshot -o "$T/mine/jobs/x/%j/s.json"
[ -e "$T/mine/jobs/s.json" ] && fail "%j=.. climbed out of the folder named" || pass "%j=.. does not climb a folder"
SLURM_JOB_ID=7 run_nd "$T/o" "$T/e" snapshot -o "$T/theirs/%j.json"
expect_rc 73 "snapshot -o with %j in another user's folder is refused"
empty "$T/theirs" "snapshot -o %j, another user's folder"

# run --json-summary=FILE: refused before the job starts.
run_nd "$T/o" "$T/e" run --no-devices --json-summary="$T/theirs/sum.json" -- touch "$T/started"
expect_rc 73 "--json-summary=FILE in another user's folder is refused"
assert_contains "$T/e" "belongs to another user (uid 65534)" "the owner is named"
one_line "--json-summary, another user's folder"
[ -e "$T/started" ] && fail "the job started anyway" || pass "refused before the job starts"
empty "$T/theirs" "--json-summary, another user's folder"
run_nd "$T/o" "$T/e" run --no-devices --json-summary="$T/open/sum.json" -- true
expect_rc 73 "--json-summary=FILE in a world-writable folder is refused"
assert_contains "$T/e" "others may write in it" "the reason is said"
run_nd "$T/o" "$T/e" run --no-devices --json-summary="$T/sticky/sum.json" -- true
expect_rc 0 "--json-summary=FILE in a sticky shared folder"
[ -s "$T/sticky/sum.json" ] && pass "the summary is there" || fail "no summary: $(cat "$T/e")"

# run --metrics-file
run_nd "$T/o" "$T/e" run --no-devices --metrics-file "$T/theirs/m.prom" -- touch "$T/started"
expect_rc 73 "--metrics-file in another user's folder is refused"
assert_contains "$T/e" "belongs to another user (uid 65534)" "the owner is named"
one_line "--metrics-file, another user's folder"
[ -e "$T/started" ] && fail "the job started anyway" || pass "refused before the job starts"
empty "$T/theirs" "--metrics-file, another user's folder"
run_nd "$T/o" "$T/e" run --no-devices --metrics-file "$T/grp/m.prom" -- true
expect_rc 73 "--metrics-file in a group-writable folder is refused"
empty "$T/grp" "--metrics-file, group-writable folder"
run_nd "$T/o" "$T/e" run --no-devices --metrics-file "$T/mine/m.prom" -- true
expect_rc 0 "--metrics-file in root's own folder"
[ -s "$T/mine/m.prom" ] && pass "the metrics file is there" || fail "no metrics file: $(cat "$T/e")"

# A relative path names the current folder: judged the same.
(cd "$T/theirs" && "$ND" snapshot -o s.json >"$T/o" 2>"$T/e"; echo $? >"$T/rc")
[ "$(cat "$T/rc")" = 73 ] && pass "a relative -o in another user's folder is refused" || fail "rc $(cat "$T/rc"): $(cat "$T/e")"
empty "$T/theirs" "relative -o"

finish
