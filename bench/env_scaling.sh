#!/usr/bin/env bash
# bench/env_scaling.sh: does `snapshot` stay linear in the number of
# environment variables? Times snapshot --env-file with 10,000 and 80,000
# variables in the same run, against `sort` of the same files as the anchor
# (n log n), and prints the 80k/10k ratios: about 8 is linear, about 64 is
# quadratic. Passes or fails nothing.
set -eu
cd "$(dirname "$0")/.."
ND=${ND_BIN:-build/npu-doctor}
[ -x "$ND" ] || { echo "bench/env_scaling.sh: build first ($ND missing)" >&2; exit 66; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for n in 10000 80000; do
  python3 -c "import sys
for i in range(int(sys.argv[1])): print('VAR_%d=value-%d' % (i, i))
print('PATH=/usr/bin:/bin')" "$n" >"$out/env$n"
done
# best of 3: user+sys CPU seconds, which a busy machine disturbs less than wall time
cpu() {
  local best=""
  for _ in 1 2 3; do
    local t
    t=$( { TIMEFORMAT='%U %S'; time "$@" >/dev/null 2>&1; } 2>&1 | tail -1 | awk '{print $1 + $2}')
    best=$(python3 -c "import sys; a=[float(x) for x in sys.argv[1:] if x]; print(min(a))" $best "$t")
  done
  echo "$best"
}
s10=$(cpu "$ND" snapshot --env-file "$out/env10000" -o "$out/s.json")
s80=$(cpu "$ND" snapshot --env-file "$out/env80000" -o "$out/s.json")
o10=$(cpu sort "$out/env10000")
o80=$(cpu sort "$out/env80000")
python3 - "$s10" "$s80" "$o10" "$o80" <<'PY'
import sys
s10, s80, o10, o80 = (max(float(x), 0.001) for x in sys.argv[1:])
print("%-28s %9s %9s %9s" % ("", "10k vars", "80k vars", "80k/10k"))
print("%-28s %8.3fs %8.3fs %9.1f" % ("npu-doctor snapshot", s10, s80, s80 / s10))
print("%-28s %8.3fs %8.3fs %9.1f" % ("sort (anchor)", o10, o80, o80 / o10))
print("linear is about 8; quadratic about 64")
PY
