#!/usr/bin/env bash
# Applies .clang-format to the C sources (src/, tests/, fuzz/, bench/), or with
# --check only counts what it would change (exit 1 when anything would).
# Usage: scripts/dev/format.sh [--check]
set -euo pipefail
cd "$(dirname "$0")/../.."

mode=${1:-apply}
case "$mode" in
  apply|--check) ;;
  *) echo "format: unknown option '$mode' (usage: $0 [--check])" >&2; exit 64 ;;
esac
command -v clang-format >/dev/null 2>&1 ||
  { echo "format: clang-format not found: apt-get install clang-format" >&2; exit 66; }

mapfile -t files < <(git ls-files -- 'src/*.[ch]' 'tests/*.[ch]' 'fuzz/*.[ch]' 'bench/*.[ch]' 'tools/*.[ch]')
[ ${#files[@]} -gt 0 ] || { echo "format: no C files found (run inside the repository)" >&2; exit 66; }

if [ "$mode" = apply ]; then
  clang-format -i --style=file "${files[@]}"
  echo "format: ${#files[@]} files formatted"
  exit 0
fi

lines=0 changed=0
for f in "${files[@]}"; do
  n=$(clang-format --style=file "$f" | diff -- "$f" - | grep -c '^>' || true)
  if [ "$n" -gt 0 ]; then
    changed=$((changed + 1)) lines=$((lines + n))
    echo "$f: $n lines"
  fi
done
echo "format: $lines lines in $changed of ${#files[@]} files would change"
[ "$changed" -eq 0 ]
