#!/usr/bin/env bash
# Debian packages (amd64, arm64) of the release binaries that scripts/dist.sh
# built: the same files as `make install PREFIX=/usr`, rules.d under /etc.
# Usage: scripts/deb.sh [ARCH...]   (default: x86_64 aarch64)
set -euo pipefail
cd "$(dirname "$0")/.."
archs=("$@")
[ ${#archs[@]} -gt 0 ] || archs=(x86_64 aarch64)
version=$(sed -n 's/^project(npu-doctor VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)
mkdir -p dist
for arch in "${archs[@]}"; do
  b=build-dist-$arch
  [ -x "$b/npu-doctor" ] || { echo "deb: $b/npu-doctor missing: run scripts/dist.sh $arch first" >&2; exit 66; }
  case "$arch" in
    x86_64) debarch=amd64; objdump=objdump ;;
    aarch64) debarch=arm64; objdump=aarch64-linux-gnu-objdump ;;
    *) echo "deb: unknown architecture '$arch'" >&2; exit 64 ;;
  esac
  stage=$(mktemp -d)
  DESTDIR=$stage cmake --install "$b" >/dev/null
  floor=$($objdump -T "$b/npu-doctor" | grep -o 'GLIBC_[0-9.]*' | sort -uV | tail -1)
  mkdir -p "$stage/DEBIAN"
  (cd "$stage" && find etc -type f | sed 's|^|/|') >"$stage/DEBIAN/conffiles"
  cat >"$stage/DEBIAN/control" <<CTL
Package: npu-doctor
Version: $version
Architecture: $debarch
Maintainer: npu-doctor developers <npu-doctor@localhost>
Depends: libc6 (>= ${floor#GLIBC_})
Section: utils
Priority: optional
Installed-Size: $(du -sk "$stage" | cut -f1)
Description: is your training job really running on the NPU or GPU?
 Checks a host before a training job starts, watches a job while it runs
 (silent CPU fallback, idle devices, hangs, OOM) and names the root cause of
 a failed job from its logs. Ascend NPUs first, NVIDIA GPUs second.
CTL
  out=dist/npu-doctor_${version}_$debarch.deb
  dpkg-deb --root-owner-group --build "$stage" "$out" >/dev/null
  rm -rf "$stage"
  echo "$out: $(dpkg-deb -f "$out" Package Version Architecture Depends | tr '\n' ' ')"
done
