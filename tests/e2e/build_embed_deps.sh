#!/usr/bin/env bash
# The compiled-in rule data follows the set of rule files, not only their
# contents: a small project built with the real cmake/embed_rules.cmake and
# cmake/embed.cmake must drop a deleted rule file, follow a rename, and pick
# up an added file whose mtime is older than the generated C file (a checkout
# or `cp -p`), each after a plain incremental `cmake --build`.
# shellcheck source=tests/e2e/lib/assert.sh
. "$(dirname "$0")/lib/assert.sh"

SRC=${ND_SRC:?}
R=$T/root
B=$T/build
mkdir -p "$R/rules" "$R/data" "$T/proj" "$T/spare"
for n in alpha beta; do
  printf '[t.%s]\npattern = %s-MARK\n' "$n" "$n" >"$R/rules/$n.rules"
done
printf 'a\tb\n' >"$R/data/table.tsv"
printf '[t.gamma]\npattern = gamma-MARK\n' >"$T/spare/gamma.rules"
# Old mtimes: only the set of names can make the generated file stale.
touch -d '2000-01-01 00:00:00' "$R"/rules/*.rules "$R/data/table.tsv" "$T/spare/gamma.rules"

cat >"$T/proj/CMakeLists.txt" <<CM
cmake_minimum_required(VERSION 3.18)
project(embed_deps NONE)
include($SRC/cmake/embed_rules.cmake)
nd_embed_data($R \${CMAKE_BINARY_DIR}/embedded_data.c)
add_custom_target(embed ALL DEPENDS \${CMAKE_BINARY_DIR}/embedded_data.c)
CM

build() { # build DESCRIPTION
  if cmake --build "$B" >"$T/log" 2>&1; then pass "$1: the build succeeds"
  else fail "$1: the build failed:"; sed 's/^/    | /' "$T/log"; fi
}

if cmake -S "$T/proj" -B "$B" >"$T/log" 2>&1; then pass "the test project configures"
else fail "configure failed:"; sed 's/^/    | /' "$T/log"; finish; exit; fi
build "first build"
G=$B/embedded_data.c
assert_contains "$G" '"rules/alpha.rules"' "first build embeds alpha"
assert_contains "$G" '"rules/beta.rules"' "first build embeds beta"
assert_contains "$G" '"data/table.tsv"' "first build embeds the data table"

before=$(stat -c %Y.%y "$G")
build "no change"
[ "$(stat -c %Y.%y "$G")" = "$before" ] && pass "an unchanged set of files regenerates nothing" \
  || fail "the generated file was rewritten although nothing changed"

rm "$R/rules/beta.rules"
build "after deleting beta.rules"
assert_not_contains "$G" 'rules/beta.rules' "a deleted rule file is gone from the generated data"
assert_contains "$G" '"rules/alpha.rules"' "the remaining rule file stays"

mv "$R/rules/alpha.rules" "$R/rules/renamed.rules"
build "after renaming alpha.rules"
assert_not_contains "$G" 'rules/alpha.rules' "a renamed rule file's old name is gone"
assert_contains "$G" '"rules/renamed.rules"' "a renamed rule file appears under its new name"

cp -p "$T/spare/gamma.rules" "$R/rules/gamma.rules"
build "after adding an old-dated gamma.rules"
assert_contains "$G" '"rules/gamma.rules"' "an added rule file older than the generated data is embedded"
finish
