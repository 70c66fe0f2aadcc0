#!/usr/bin/env bash
# Files as root on a shared host, second pass: an output path that is
# another user's file (with set-id bits), a second hard link, or reached
# through a link another user put in a sticky world-writable folder; a
# cache folder another user owns; inputs that would keep explain busy for
# ever (a 20 GiB sparse file, a log appended to faster than it is read, a
# gzip bomb). Every wait is bounded (timeout); nothing asserts on time.
. "$(dirname "$0")/lib/assert.sh"
export NO_COLOR=1
printf 'PATH=/usr/bin:/bin\n' >"$T/job.env"
OOM='torch.cuda.OutOfMemoryError: CUDA out of memory.'

if [ "$(id -u)" != 0 ] || ! id nobody >/dev/null 2>&1; then
  echo "note - not root or no user nobody: the other-user cases need both"
  OTHER=""
else
  OTHER=nobody
fi

# ---------------------------------------------------------------- output paths
mkdir -p "$T/shared"
chmod 1777 "$T/shared"
if [ -n "$OTHER" ]; then
  # Another user's file, planted under the name root will write, set-id and
  # world-writable: replacing it gave root a -rwsrwsrwx file.
  touch "$T/shared/snap.json"
  chown "$OTHER" "$T/shared/snap.json"
  chmod 6777 "$T/shared/snap.json"
  run_nd "$T/o" "$T/e" snapshot --env-file "$T/job.env" -o "$T/shared/snap.json"
  expect_rc 73 "snapshot -o another user's file is refused"
  assert_contains "$T/e" "belongs to another user" "the reason is said"
  if [ "$(stat -c %U "$T/shared/snap.json")" = "$OTHER" ] && [ ! -s "$T/shared/snap.json" ]; then
    pass "the other user's file is untouched"; else fail "the other user's file was replaced"; fi
  run_nd "$T/o" "$T/e" run --no-devices --json-summary="$T/shared/snap.json" -- touch "$T/started1"
  expect_rc 73 "--json-summary=another user's file is refused"
  if [ -e "$T/started1" ]; then fail "the job started anyway"; else pass "before the job starts"; fi

  # A link of another user in the sticky folder, to a folder of root's.
  mkdir -p "$T/rootdir"
  ln -s "$T/rootdir" "$T/shared/rep"
  chown -h "$OTHER" "$T/shared/rep"
  run_nd "$T/o" "$T/e" run --no-devices --report "$T/shared/rep" -- true
  expect_rc 73 "--report through another user's link in a sticky folder is refused"
  assert_contains "$T/e" "symbolic link of another user" "the link is named"
  run_nd "$T/o" "$T/e" run --no-devices --report "$T/shared/rep/sub/dir" -- true
  expect_rc 73 "--report below that link is refused"
  if [ -z "$(ls -A "$T/rootdir")" ]; then pass "nothing was written or made behind the link"; else fail "written behind the link: $(ls "$T/rootdir")"; fi
  run_nd "$T/o" "$T/e" snapshot --env-file "$T/job.env" -o "$T/shared/rep/x.json"
  expect_rc 73 "snapshot -o through that link is refused"
  run_nd "$T/o" "$T/e" run --no-devices --metrics-file "$T/shared/rep/m.prom" -- true
  expect_rc 73 "--metrics-file through that link is refused"
  [ -z "$(ls -A "$T/rootdir")" ] && pass "the folder behind the link stays empty" || fail "written behind the link"
fi

# One's own link in the sticky folder is followed, as the kernel does.
mkdir -p "$T/mine"
ln -s "$T/mine" "$T/shared/mylink"
run_nd "$T/o" "$T/e" snapshot --env-file "$T/job.env" -o "$T/shared/mylink/s.json"
expect_rc 0 "snapshot -o through one's own link"
[ -s "$T/mine/s.json" ] && pass "written where the link points" || fail "not written"

# A second name of a file that lives elsewhere is not ours to replace.
echo precious >"$T/elsewhere"
ln "$T/elsewhere" "$T/shared/hard.json"
run_nd "$T/o" "$T/e" snapshot --env-file "$T/job.env" -o "$T/shared/hard.json"
expect_rc 73 "snapshot -o a hard link is refused"
assert_contains "$T/e" "other hard links"
[ "$(cat "$T/shared/hard.json")" = precious ] && pass "the linked file is untouched" || fail "the linked file changed"

# One's own file is replaced, with its permissions but no set-id bit.
touch "$T/own.json"
chmod 4755 "$T/own.json"
run_nd "$T/o" "$T/e" snapshot --env-file "$T/job.env" -o "$T/own.json"
expect_rc 0 "snapshot -o one's own file replaces it"
if [ "$(stat -c %a "$T/own.json")" = 755 ]; then pass "permissions kept, set-id bit dropped"; else fail "mode now $(stat -c %a "$T/own.json")"; fi

# ---------------------------------------------------------------- the cache folder
if [ -n "$OTHER" ]; then
  mkdir -p "$T/theircache" "$T/site"
  chown "$OTHER" "$T/theircache"
  printf '[site.only-here]\ncategory = config\ntitle = t\nfix = f\npattern = ZZ site marker\nexample = ZZ site marker\n' \
    >"$T/site/a.rules"
  printf 'ZZ site marker\n' >"$T/site.log"
  NPU_DOCTOR_CACHE_DIR=$T/theircache NPU_DOCTOR_REDACT_KEY= run_nd "$T/o" "$T/e" explain --rules "$T/site" "$T/site.log"
  expect_rc 2 "explain with a cache folder of another user still works"
  if [ -z "$(ls -A "$T/theircache")" ]; then pass "nothing is written into another user's cache folder"
  else fail "written into another user's cache folder: $(ls "$T/theircache")"; fi
  printf 'PATH=/usr/bin:/bin\nHF_TOKEN=x-secret\n' >"$T/k.env"
  NPU_DOCTOR_CACHE_DIR=$T/theircache NPU_DOCTOR_REDACT_KEY= run_nd "$T/o" "$T/e" snapshot --env-file "$T/k.env"
  assert_json "$T/o" 'd["redaction"]["key_source"] == "run"' "no redaction key is kept in another user's folder"
  [ -z "$(ls -A "$T/theircache")" ] && pass "the folder stays empty" || fail "written: $(ls "$T/theircache")"
fi

# ---------------------------------------------------------------- inputs that never end
# 200 GiB of holes and one line: the holes are skipped, not read (reading
# them took minutes).
truncate -s 200G "$T/sparse.log"
printf '%s\n' "$OOM" >>"$T/sparse.log"
timeout 60 "$ND" explain "$T/sparse.log" >"$T/o" 2>"$T/e"
rc=$?
expect_rc 2 "explain on a 200 GiB sparse file finds the line after the holes"
assert_contains "$T/e" "NUL bytes skipped" "the holes are noted"
rm -f "$T/sparse.log"

# A log appended to faster than it is read: read as it was when opened
# (before, explain chased the writer for as long as it wrote). The writer
# (yes, faster than any scan) stops at 2 GiB whatever happens; explain must
# have read less than what the file held when it ended.
LINE="step 1 loss 0.5 $(printf '%0200d' 0)"
(ulimit -f $((2 * 1024 * 1024)) && exec yes "$LINE" >"$T/grow.log" 2>/dev/null) &
writer=$! # yes itself; SIGXFSZ ends it at 2 GiB
ND_BG_PIDS="$writer"
i=0
while [ ! -s "$T/grow.log" ] && [ "$i" -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
timeout 120 "$ND" explain "$T/grow.log" >"$T/o" 2>"$T/e"
rc=$?
size_after=$(stat -c %s "$T/grow.log")
kill "$writer" 2>/dev/null
wait "$writer" 2>/dev/null
ND_BG_PIDS=""
expect_rc 0 "explain on a log still being written ends"
lines=$(sed -n 's/.*in 1 input (\([0-9]*\) lines).*/\1/p' "$T/o")
if [ -n "$lines" ] && [ $((lines * (${#LINE} + 1))) -lt "$size_after" ]; then
  pass "it read the log as it was when opened ($lines lines of a file now $size_after bytes)"
else
  fail "it read ${lines:-?} lines of a file of $size_after bytes (chased the writer?)"
fi
rm -f "$T/grow.log"

# A gzip bomb: over 1 GiB at about 1000 times its size stops with a note.
{ head -c 1200M /dev/zero | gzip -1; printf '%s\n' "$OOM" | gzip; } >"$T/bomb.gz"
timeout 300 "$ND" explain "$T/bomb.gz" >"$T/o" 2>"$T/e"
rc=$?
if [ "$rc" -ne 124 ] && [ "$rc" -lt 64 ]; then pass "explain on a gzip bomb ends (exit $rc)"; else fail "gzip bomb: exit $rc"; fi
assert_contains "$T/e" "decompression bomb" "the bomb is noted"
assert_contains "$T/e" "zcat FILE | npu-doctor explain -" "the note says how to read it all"
# A highly repetitive log under 1 GiB is read to its end, last line included.
{ yes 'step 1 loss 0.5' | head -c 64M; printf '%s\n' "$OOM"; } | gzip -1 >"$T/rep.gz"
run_nd "$T/o" "$T/e" explain "$T/rep.gz"
expect_rc 2 "a repetitive gzip log is read to its last line"
finish
