#!/usr/bin/env bash
# Includes go down the layers, never up: every `#include "DIR/..."` in src/
# must name its own folder or one the layer table below lets it use. The
# table is the one docs/architecture.md shows (checked here too), so the
# order is written down once and enforced. A failure names file:line and
# the edge, e.g. "src/core/timeline.h:12: core -> monitor (monitor/series.h)".
# shellcheck source=tests/e2e/lib/assert.sh
. "$(dirname "$0")/lib/assert.sh"

SRC=${ND_SRC:?}

# folder: the folders it builds on directly (and, through them, everything
# below). "main" is src/main.c.
layers='core:
device: core
kb: core
proc: device
probe: proc kb
snapshot: probe
diff: snapshot
monitor: probe
cmd: diff monitor
main: cmd'

declare -A direct allowed
while IFS=: read -r dir deps; do
  direct[$dir]=$deps
done <<<"$layers"

# The closure of a folder's direct dependencies: what it may include.
closure() {
  local d out=""
  for d in ${direct[$1]}; do
    out+=" $d $(closure "$d")"
  done
  echo "$out"
}
for dir in "${!direct[@]}"; do
  allowed[$dir]=" $(closure "$dir" | tr -s ' ' '\n' | sort -u | tr '\n' ' ') "
done

# Every folder under src/ has a place in the table.
for d in "$SRC"/src/*/; do
  d=$(basename "$d")
  if [ -n "${direct[$d]+x}" ]; then pass "src/$d/ has a layer"
  else fail "src/$d/ is not in the layer table (tests/e2e/include_layers.sh, docs/architecture.md)"; fi
done

# The edges. Quoted includes without a folder name their own folder.
bad=0
while IFS=: read -r file line target; do
  rel=${file#"$SRC"/}
  from=${rel#src/}
  from=${from%%/*}
  [ "$from" = main.c ] && from=main
  to=${target%%/*}
  [ "$to" = "$target" ] && continue
  [ "$to" = "$from" ] && continue
  case "${allowed[$from]:-}" in
    *" $to "*) ;;
    *) read -ra may <<<"${allowed[$from]:-}"
       fail "$rel:$line: $from -> $to ($target) goes up the layers; $from may include: ${may[*]:-only itself}"
       bad=$((bad + 1)) ;;
  esac
done < <(grep -rnE --include='*.c' --include='*.h' '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$SRC/src" |
         sed -E 's/^([^:]*):([0-9]+):[[:space:]]*#[[:space:]]*include[[:space:]]*"([^"]*)".*/\1:\2:\3/')
nfiles=$(find "$SRC/src" -name '*.[ch]' | wc -l)
if [ "$bad" -eq 0 ]; then pass "no upward #include in $nfiles files under src/"; fi

# The table in docs/architecture.md is this one.
doc=$SRC/docs/architecture.md
sed -n '/<!-- layers -->/,/<!-- \/layers -->/p' "$doc" | grep -E '^[a-z]+:' >"$T/doc-layers"
if diff <(echo "$layers") "$T/doc-layers" >"$T/layers.diff"; then
  pass "docs/architecture.md shows the enforced layer table"
else
  fail "docs/architecture.md's layer table differs from this test's"; sed 's/^/    | /' "$T/layers.diff"
fi
finish
