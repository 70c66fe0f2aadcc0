#!/usr/bin/env bash
# Bad input: each bad file is skipped with a note and the run goes on; exit
# 66 only when nothing at all could be read. `timeout` is a hang guard only.
. "$(dirname "$0")/lib/assert.sh"

nd_t() { # OUT ERR ARGS...: run with a generous hang guard
  local out=$1 err=$2
  shift 2
  timeout 300 "$ND" "$@" >"$out" 2>"$err"
  rc=$?
}

good="$T/good.log"
echo 'torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 7.79 GiB total capacity)' >"$good"

# A 100 MB single line followed by a real error: the line is cut with a note,
# and the error after it is still found, on line 2.
head -c 104857600 /dev/zero | tr '\0' 'x' >"$T/huge.log"
printf '\nRuntimeError: CUDA error: an illegal memory access was encountered\n' >>"$T/huge.log"
nd_t "$T/out" "$T/err" explain --json "$T/huge.log"
expect_rc 2 "100 MB line: still explains the error after it"
assert_contains "$T/err" "longer than" "note for the huge line"
assert_json "$T/out" 'd["findings"][0]["id"] == "cuda.illegal-memory-access" and d["findings"][0]["first"]["line"] == 2' "error after the huge line found on line 2"

# NUL bytes: binary, skipped with a note. Invalid UTF-8 in a text log: read,
# and the JSON stays valid.
printf 'ELF\0\0\0\1\2\3 CUDA out of memory \0\0' >"$T/nul.bin"
printf 'RuntimeError: CUDA out of memory \xff\xfe\xc3( Tried to allocate 2.00 GiB\n' >"$T/latin.log"
nd_t "$T/out" "$T/err" explain --json "$T/nul.bin" "$T/latin.log"
expect_rc 2 "binary skipped, invalid UTF-8 log explained"
assert_contains "$T/err" "nul.bin: skipped: binary" "note for the binary file"
assert_json "$T/out" 'd["findings"][0]["category"] == "device-oom" and d["inputs"]["read"] == 1' "invalid UTF-8 log read, JSON valid"

# Truncated .gz: what could be read is scanned, with a note.
{ echo 'EL0004: [PID: 1] Failed to allocate memory.'; head -c 300000 /dev/urandom | base64; } | gzip -c >"$T/full.gz"
head -c $(( $(stat -c %s "$T/full.gz") / 2 )) "$T/full.gz" >"$T/trunc.log.gz"
nd_t "$T/out" "$T/err" explain --json "$T/trunc.log.gz"
expect_rc 2 "truncated gz still explained"
assert_contains "$T/err" "trunc.log.gz" "note names the truncated gz"
assert_json "$T/out" 'd["findings"][0]["category"] == "device-oom"' "finding from the readable part of the gz"

# A whole gz works and reports the right line.
printf 'line one\nline two\nRuntimeError: No CUDA GPUs are available\n' | gzip -c >"$T/ok.log.gz"
nd_t "$T/out" "$T/err" explain --json "$T/ok.log.gz"
assert_json "$T/out" 'd["findings"][0]["id"] == "cuda.no-gpus-visible" and d["findings"][0]["first"]["line"] == 3' "gz mapped to file:line"

# Unreadable inputs (the tests may run as root, where chmod 000 does not stop
# reads): a FIFO with no writer must not hang, /proc/self/mem fails to read,
# a missing path, an empty file, a directory symlink loop.
mkfifo "$T/fifo"
: >"$T/empty.log"
mkdir -p "$T/tree/a"
ln -s .. "$T/tree/a/loop"
cp "$good" "$T/tree/a/rank_3.log"
nd_t "$T/out" "$T/err" explain --json "$T/fifo" /proc/self/mem "$T/missing.log" "$T/empty.log" "$T/tree"
expect_rc 2 "bad inputs noted, the good file in the tree explained"
assert_contains "$T/err" "missing.log: cannot open" "note for the missing file"
assert_contains "$T/err" "empty.log: empty" "note for the empty file"
assert_contains "$T/err" "/proc/self/mem: read error" "note for the unreadable file"
assert_contains "$T/err" "directory loop" "note for the symlink loop"
assert_json "$T/out" 'd["findings"][0]["rank"] == 3 and d["inputs"]["read"] == 1' "rank from the path; one input read"
assert_json "$T/out" 'len(d["notes"]) >= 4' "notes in the JSON"

# Nothing readable at all: exit 66.
nd_t "$T/out" "$T/err" explain "$T/fifo" "$T/empty.log" "$T/missing.log" "$T/nul.bin"
expect_rc 66 "nothing could be read"
assert_contains "$T/err" "nothing could be read"

# stdin, and a log with no known problem (exit 0).
printf 'INFO all good\nepoch 1 done\n' >"$T/clean.log"
nd_t "$T/out" "$T/err" explain - <"$T/clean.log"
expect_rc 0 "clean log from stdin"
assert_contains "$T/out" "No known problem" "says nothing was found"

# Secrets in log lines never reach the output.
echo 'RuntimeError: CUDA out of memory (launched with HF_TOKEN=hf_SeCrEt123 from https://bob:pa55word@hub.example/x)' >"$T/secret.log"
nd_t "$T/out" "$T/err" explain --json "$T/secret.log"
assert_not_contains "$T/out" "hf_SeCrEt123" "token redacted from evidence"
assert_not_contains "$T/out" "pa55word" "URL password redacted from evidence"
assert_json "$T/out" 'd["findings"][0]["category"] == "device-oom"' "still explained"

# A log compressed with something explain does not read (gzip it does):
# skipped with the command that reads it. Only the magic bytes matter.
printf '\x28\xb5\x2f\xfd\x00\x01\x02\x03\x04\x05\x06\x07\x08' >"$T/train.log.zst"
printf '\xfd7zXZ\x00\x00\x04\xe6\xd6\xb4\x46\x02\x00\x21\x01' >"$T/train.log.xz"
nd_t "$T/out" "$T/err" explain "$T/train.log.zst" "$T/train.log.xz"
assert_contains "$T/err" "train.log.zst: skipped: zstd-compressed (read it with: zstd -dc FILE | npu-doctor explain -)" "zstd named, with the command"
assert_contains "$T/err" "train.log.xz: skipped: xz-compressed" "xz named"

# Usage errors.
nd_t "$T/out" "$T/err" explain
expect_rc 64 "no input named"
nd_t "$T/out" "$T/err" explain --frobnicate "$good"
expect_rc 64 "unknown option"
finish
