#!/usr/bin/env bash
# The release and container files: the Dockerfile is multi-stage on Debian
# slim, builds the portable binary and runs it, and its image is the one the
# watch DaemonSet uses; the dist and deb scripts parse and pass shellcheck.
# (`make dist` and `make deb` themselves are run by hand: they cross-build.)
# shellcheck source=tests/e2e/lib/assert.sh
. "$(dirname "$0")/lib/assert.sh"

SRC=${ND_SRC:?}
D=$SRC/Dockerfile
froms=$(grep -c '^FROM ' "$D")
if [ "$froms" -ge 2 ]; then pass "Dockerfile has $froms stages"; else fail "Dockerfile is not multi-stage"; fi
if [ "$(grep '^FROM ' "$D" | tail -1)" = "FROM debian:bookworm-slim" ]; then pass "final stage is Debian slim"
else fail "final stage: $(grep '^FROM ' "$D" | tail -1)"; fi
assert_contains "$D" "-DND_PORTABLE=ON" "the image carries the portable build"
assert_contains "$D" 'ENTRYPOINT ["npu-doctor"]' "the entrypoint is npu-doctor"
assert_contains "$D" "procps" "pgrep for the watch loop"
# Every package the build stage installs is one scripts/install-deps.sh names.
for p in $(sed -n '/^FROM .* AS build/,/^FROM /p' "$D" | grep -o 'lib[a-z0-9-]*-dev'); do
  assert_contains "$SRC/scripts/install-deps.sh" "$p" "install-deps.sh names $p"
done
img=$(grep -o 'image: .*npu-doctor:[0-9.]*' "$SRC/deploy/k8s/watch-daemonset.yaml" | sed 's/image: //')
ver=$(sed -n 's/^project(npu-doctor VERSION \([0-9.]*\).*/\1/p' "$SRC/CMakeLists.txt")
if [ "${img##*:}" = "$ver" ]; then pass "the DaemonSet runs the image of this version ($img)"; else fail "DaemonSet image $img, project $ver"; fi
for s in "$SRC/scripts/dist.sh" "$SRC/scripts/deb.sh" "$SRC/scripts/uninstall.sh"; do
  if bash -n "$s" && shellcheck "$s" >"$T/sc" 2>&1; then pass "shellcheck ${s#"$SRC"/}"
  else fail "shellcheck ${s#"$SRC"/}"; sed 's/^/    | /' "$T/sc"; fi
done
finish
