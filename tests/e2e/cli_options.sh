#!/usr/bin/env bash
# The one command-line layer, held to the same rules in every command: an
# unknown option and an option missing its value are exactly one line
# ("npu-doctor CMD: ...") and the try line, exit 64, nothing on stdout;
# --help fits 80 columns and lists the options the man page and the shell
# completion list; a write error on stdout is one line and exit 70; pids and
# seconds are read strictly.
. "$(dirname "$0")/lib/assert.sh"

FIX=${ND_FIXTURES:?}
SRC=${ND_SRC:?}
GOOD=$FIX/snapshots/founding/good.json
BAD=$FIX/snapshots/founding/bad.json

# usage_error LABEL WANT-LINE-1 TRY-CMD: the last run gave exit 64, stdout
# empty, and stderr is exactly WANT-LINE-1 then "try 'npu-doctor TRY-CMD --help'".
usage_error() {
  expect_rc 64 "$1"
  local want_try="try 'npu-doctor${3:+ $3} --help'"
  if [ "$(wc -l <"$T/e")" -eq 2 ] && [ "$(sed -n 1p "$T/e")" = "$2" ] && [ "$(sed -n 2p "$T/e")" = "$want_try" ]; then
    pass "$1: one line and the try line"
  else
    fail "$1: stderr is not '$2' + '$want_try':"; sed 's/^/    | /' "$T/e"
  fi
  if [ ! -s "$T/o" ]; then pass "$1: nothing on stdout"; else fail "$1: stdout not empty"; fi
}

# The man page section of one command: from its .SS line to the next .SS/.SH.
man_options() {
  sed 's/\\-/-/g' "$SRC/docs/npu-doctor.1" |
    awk -v c="$1" '/^\.S[SH] /{ on = ($1 == ".SS" && $2 == "\"" c) } on' |
    grep -o -E -- '--[a-z][a-z0-9-]*' | sort -u
}

# The options of --help: its option lines ("  -l, --level N", "  --json").
help_options() {
  grep -o -E -- '^ +(-[a-zA-Z], )?--[a-z][a-z0-9-]*' "$1" | grep -o -E -- '--[a-z][a-z0-9-]*' | sort -u
}

# shellcheck source=../../completion/npu-doctor.bash
. "$SRC/completion/npu-doctor.bash"

[ -c /dev/full ] && pass "/dev/full is there" || fail "/dev/full is missing: the write-error cases cannot run"

for cmd in check run watch ps explain snapshot diff rules; do
  run_nd "$T/o" "$T/e" "$cmd" --bogus
  usage_error "$cmd --bogus" "npu-doctor $cmd: unknown option '--bogus'" "$cmd"

  run_nd "$T/help" "$T/e" "$cmd" --help
  expect_rc 0 "$cmd --help"
  long=$(awk 'length($0) > 80' "$T/help")
  if [ -z "$long" ]; then pass "$cmd --help fits 80 columns"; else fail "$cmd --help has longer lines:"; echo "$long"; fi
  # The first option in the help that takes a value, given without one.
  first=$(grep -o -E -- '--[a-z][a-z0-9-]* [A-Z]' "$T/help" | head -n 1 | cut -d' ' -f1)
  if [ -n "$first" ]; then pass "$cmd: $first takes a value"; else fail "$cmd: no option with a value in --help"; fi
  run_nd "$T/o" "$T/e" "$cmd" "$first"
  usage_error "$cmd $first without a value" "npu-doctor $cmd: option '$first' needs a value" "$cmd"

  help_options "$T/help" | grep -v -x -- --help >"$T/h.opts"
  # The man page says watch "takes the options of run but its time limit" (--timeout), and its own.
  { man_options "$cmd"; [ "$cmd" = watch ] && man_options run | grep -v -x -- --timeout; } | sort -u >"$T/m.opts"
  if diff -u "$T/m.opts" "$T/h.opts" >"$T/d"; then pass "$cmd: --help and the man page list the same options"
  else fail "$cmd: --help and the man page differ (- man, + help):"; sed 's/^/    | /' "$T/d"; fi
  _npu_doctor_options "$ND" "$cmd" | grep -v -x -- --help >"$T/c.opts"
  if diff -u "$T/h.opts" "$T/c.opts" >"$T/d"; then pass "$cmd: bash completion offers the --help options"
  else fail "$cmd: completion and --help differ:"; sed 's/^/    | /' "$T/d"; fi

  "$ND" "$cmd" --help >/dev/full 2>"$T/e"
  rc=$?
  expect_rc 70 "$cmd --help >/dev/full"
  if [ "$(wc -l <"$T/e")" -eq 1 ] && grep -q "^npu-doctor $cmd: write error on standard output" "$T/e"; then
    pass "$cmd --help >/dev/full: one line"; else fail "$cmd --help >/dev/full:"; sed 's/^/    | /' "$T/e"; fi
done

# The rules subcommands share the table; the top level has its own.
run_nd "$T/o" "$T/e" rules list --bogus
usage_error "rules list --bogus" "npu-doctor rules: unknown option '--bogus'" rules
run_nd "$T/o" "$T/e" --bogus
usage_error "npu-doctor --bogus" "npu-doctor: unknown option '--bogus'" ""
run_nd "$T/o" "$T/e" frobnicate
usage_error "an unknown command" "npu-doctor: unknown command 'frobnicate'" ""

run_nd "$T/help" "$T/e" --help
long=$(awk 'length($0) > 80' "$T/help")
if [ -z "$long" ]; then pass "npu-doctor --help fits 80 columns"; else fail "npu-doctor --help has longer lines:"; echo "$long"; fi
# A bad --redact pattern is a bad option value like any other.
for cmd in check ps explain snapshot diff; do
  run_nd "$T/o" "$T/e" "$cmd" --redact '('
  expect_rc 64 "$cmd --redact '('"
  if [ "$(wc -l <"$T/e")" -eq 2 ] && grep -q "^npu-doctor $cmd: --redact '('" "$T/e" &&
    [ "$(tail -n 1 "$T/e")" = "try 'npu-doctor $cmd --help'" ]; then pass "$cmd --redact '(': one line and the try line"
  else fail "$cmd --redact '(':"; sed 's/^/    | /' "$T/e"; fi
done

# Write errors: every command that prints, on its real output too.
# full LABEL CMD ARGS...: exit 70 and one line naming CMD ("" for the top level).
full() {
  local label=$1 cmd=$2
  shift 2
  "$ND" "$@" >/dev/full 2>"$T/e"
  rc=$?
  expect_rc 70 "$label >/dev/full"
  local n
  n=$(grep -c "write error on standard output" "$T/e")
  if [ "$n" -eq 1 ] && grep -q "^npu-doctor${cmd:+ $cmd}: write error on standard output" "$T/e" &&
    ! grep -v -e "write error on standard output" -e "^npu-doctor explain: note: " "$T/e" | grep -q .; then
    pass "$label >/dev/full: one line"; else fail "$label >/dev/full:"; sed 's/^/    | /' "$T/e"; fi
}
printf 'E39999: An exception occurred\n' >"$T/job.log"
printf 'PATH=/usr/bin\n' >"$T/job.env"
full "--version" "" --version
full "--help" "" --help
full "check" check check --root "$FIX/roots/cuda-host" --env-file "$T/job.env"
full "check --json" check check --json --root "$FIX/roots/cuda-host" --env-file "$T/job.env"
full "ps" ps ps --interval 0
full "ps --json" ps ps --json --interval 0
full "explain" explain explain "$T/job.log"
full "explain --json" explain explain --json "$T/job.log"
full "snapshot" snapshot snapshot --json --env-file "$T/job.env"
full "diff" diff diff "$GOOD" "$BAD"
full "diff --json" diff diff --json "$GOOD" "$BAD"
full "rules list" rules rules list
full "rules list --json" rules rules list --json
# A reader that leaves early is not an error of ours: SIGPIPE as always.
out=$( (trap '' PIPE; "$ND" rules list 2>"$T/e" | head -n 1 >/dev/null; exit "${PIPESTATUS[0]}") ); rc=$?
expect_rc 0 "rules list | head -1 with SIGPIPE ignored"
assert_not_contains "$T/e" "write error" "a closed pipe is not reported"

# Numbers: strict digits, within pid_max; the spellings that worked still do.
free=$(nd_free_pid)
for v in 1e0 0x10 " 5" "5 " -1 0 99999999999 ""; do
  run_nd "$T/o" "$T/e" check --env-from "$v"
  usage_error "check --env-from '$v'" \
    "npu-doctor check: --env-from must be a process id (1-$(cat /proc/sys/kernel/pid_max)), not '$v'" check
done
run_nd "$T/o" "$T/e" snapshot --env-from 99999999999
expect_rc 64 "snapshot --env-from 99999999999 does not wrap"
run_nd "$T/o" "$T/e" ps --pid "$free"
expect_rc 66 "ps --pid of a free pid: no such process"
for v in 1e1 0x1 +1 " 1" 1s; do
  run_nd "$T/o" "$T/e" run --interval "$v" -- true
  usage_error "run --interval '$v'" \
    "npu-doctor run: --interval must be a number of seconds between 0.1 and 60, not '$v'" run
done
run_nd "$T/o" "$T/e" run --interval 0.5 --window=2 --hang-after 3. --grace .5 --quiet -- true
expect_rc 0 "decimal seconds, --opt=value and --opt value"
run_nd "$T/o" "$T/e" ps --interval 0 --busy 0.001 --json
expect_rc 0 "ps --interval 0 --busy 0.001"

# Grammar: "--" ends the options; run hands everything after CMD to it;
# unambiguous prefixes work, ambiguous ones are named.
run_nd "$T/o" "$T/e" run --quiet -- sh -c 'echo "$1"' sh --json
expect_rc 0 "run -- CMD"
assert_contains "$T/o" "--json" "the job's own --json reaches the job"
run_nd "$T/o" "$T/e" run --quiet printf '%s\n' -q
expect_rc 0 "run CMD ARGS without --"
assert_contains "$T/o" "-q" "options after CMD are the job's"
cp "$T/job.log" "$T/--json"
run_nd "$T/o" "$T/e" explain --wide -- "$T/--json"
expect_rc 2 "explain -- a file named like an option"
run_nd "$T/o" "$T/e" check --root "$FIX/roots/cuda-host" --env-file "$T/job.env" --verb -qv
assert_not_contains "$T/e" "unknown option" "a unique prefix and a flag cluster"
run_nd "$T/o" "$T/e" check --env 1
usage_error "an ambiguous prefix" "npu-doctor check: ambiguous option '--env': --env-from --env-file" check
run_nd "$T/o" "$T/e" check -l2 --fail-on=warning --root "$FIX/roots/cuda-host" --env-file "$T/job.env" --python /no/such
expect_rc 66 "-lVALUE and --opt=VALUE reach the command"

finish
