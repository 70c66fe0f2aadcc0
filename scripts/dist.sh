#!/usr/bin/env bash
# Release tarballs: for each architecture (x86_64, aarch64 cross-built), one
# npu-doctor binary that links only glibc dynamically (vectorscan, jansson,
# inih, zlib and libstdc++ inside), with its man page, completions and docs.
# Each binary is run from its unpacked tarball (aarch64 under qemu), and the
# newest glibc symbol version it needs is printed with the symbols that pin it.
# Usage: scripts/dist.sh [ARCH...]   (default: x86_64 aarch64)
set -euo pipefail
cd "$(dirname "$0")/.."
archs=("$@")
[ ${#archs[@]} -gt 0 ] || archs=(x86_64 aarch64)
version=$(sed -n 's/^project(npu-doctor VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)
jobs=$(nproc 2>/dev/null || echo 2)
mkdir -p dist
for arch in "${archs[@]}"; do
  b=build-dist-$arch
  flags=(-DCMAKE_BUILD_TYPE=Release -DND_PORTABLE=ON -DCMAKE_INSTALL_PREFIX=/usr)
  run=()
  objdump=objdump
  case "$arch" in
    x86_64) ;;
    aarch64)
      flags+=(-DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake)
      run=(qemu-aarch64 -L /usr/aarch64-linux-gnu)
      objdump=aarch64-linux-gnu-objdump ;;
    *) echo "dist: unknown architecture '$arch' (x86_64, aarch64)" >&2; exit 64 ;;
  esac
  cmake -S . -B "$b" "${flags[@]}" >/dev/null
  cmake --build "$b" -j "$jobs" --target npu-doctor >/dev/null
  name=npu-doctor-$version-linux-$arch
  stage=$(mktemp -d)
  DESTDIR=$stage cmake --install "$b" >/dev/null
  # The tarball unpacks to one folder: bin/, share/, etc/ as under /usr.
  mkdir -p "$stage/$name"
  mv "$stage/usr/"* "$stage/$name/"
  mv "$stage/etc" "$stage/$name/etc"
  tar -C "$stage" -czf "dist/$name.tar.gz" "$name"
  rm -rf "$stage"
  # Run it from the unpacked tarball, nothing else on the path.
  check=$(mktemp -d)
  tar -C "$check" -xzf "dist/$name.tar.gz"
  "${run[@]}" "$check/$name/bin/npu-doctor" --version | sed 's/^/  /'
  printf 'RuntimeError: NPU out of memory. Tried to allocate 2.00 GiB\n' >"$check/log"
  NPU_DOCTOR_CACHE_DIR=$check/cache "${run[@]}" "$check/$name/bin/npu-doctor" explain --json "$check/log" \
    >"$check/out.json" || true
  grep -q '"category": "device-oom"' "$check/out.json" || { echo "dist: $name does not run from its tarball" >&2; exit 1; }
  libs=$($objdump -p "$check/$name/bin/npu-doctor" | awk '/NEEDED/ {print $2}' | tr '\n' ' ')
  floor=$($objdump -T "$check/$name/bin/npu-doctor" | grep -o 'GLIBC_[0-9.]*' | sort -uV | tail -1)
  pins=$($objdump -T "$check/$name/bin/npu-doctor" | awk -v v="($floor)" '$0 ~ v {print $NF}' | sort -u | tr '\n' ' ')
  echo "dist/$name.tar.gz: needs $libs"
  echo "  glibc floor: $floor (pinned by: $pins)"
  rm -rf "$check"
done
