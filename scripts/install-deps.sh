#!/bin/sh
# Installs the Debian packages npu-doctor needs to build and test, and only
# those that are missing. As non-root it prints the command instead.
# Usage: scripts/install-deps.sh [build|test|fuzz|bench|aarch64]   (default: test)
set -eu

what=${1:-test}
build_pkgs="cmake make gcc pkg-config libvectorscan-dev libjansson-dev libinih-dev zlib1g-dev"
test_pkgs="libcmocka-dev clang python3 python3-torch python3-psutil python3-yaml python3-jsonschema procps shellcheck zsh groff-base"
fuzz_pkgs="clang libclang-rt-14-dev"
bench_pkgs="ripgrep hyperfine lsof python3-psutil python3-torch"
# The aarch64 cross build: the cross compiler, qemu to run its tests, and the
# arm64 builds of the libraries (multiarch: dpkg --add-architecture arm64).
a64_pkgs="gcc-aarch64-linux-gnu libstdc++-12-dev-arm64-cross qemu-user file libvectorscan-dev:arm64 libjansson-dev:arm64 libinih-dev:arm64 zlib1g-dev:arm64 libcmocka-dev:arm64"

case "$what" in
  build) pkgs=$build_pkgs ;;
  test) pkgs="$build_pkgs $test_pkgs" ;;
  fuzz) pkgs="$build_pkgs $fuzz_pkgs" ;;
  bench) pkgs="$build_pkgs $test_pkgs $bench_pkgs" ;;
  aarch64) pkgs="$build_pkgs $test_pkgs $a64_pkgs" ;;
  *) echo "install-deps: unknown set '$what' (build|test|fuzz|bench|aarch64)" >&2; exit 64 ;;
esac

# clang's sanitizer runtime is its own package on Debian (libclang-rt-N-dev),
# named after clang's major version, which is only known once clang is there.
clang_rt() {
  command -v clang >/dev/null 2>&1 || return 0
  major=$(clang -dumpversion 2>/dev/null | cut -d. -f1)
  [ -n "$major" ] && echo "libclang-rt-$major-dev"
}

missing=""
for p in $pkgs; do
  case " $missing " in *" $p "*) continue ;; esac
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  case "$status" in
    *"install ok installed"*) ;;
    *) missing="$missing $p" ;;
  esac
done

if [ "$what" != build ]; then
  rt=$(clang_rt)
  if [ -n "$rt" ] && ! dpkg-query -W -f='${Status}' "$rt" 2>/dev/null | grep -q "install ok installed" \
      && apt-cache show "$rt" >/dev/null 2>&1; then
    missing="$missing $rt"
  fi
fi

[ -z "$missing" ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
  echo "npu-doctor needs these packages:$missing" >&2
  echo "run: sudo apt-get update && sudo apt-get install -y$missing" >&2
  exit 1
fi

echo "installing:$missing"
export DEBIAN_FRONTEND=noninteractive
case "$missing" in
  *:arm64*) dpkg --print-foreign-architectures | grep -qx arm64 || dpkg --add-architecture arm64 ;;
esac
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing

# A clang installed just now brings the name of its runtime package with it.
if [ "$what" != build ]; then
  rt=$(clang_rt)
  if [ -n "$rt" ] && ! dpkg-query -W -f='${Status}' "$rt" 2>/dev/null | grep -q "install ok installed" \
      && apt-cache show "$rt" >/dev/null 2>&1; then
    apt-get install -y -qq --no-install-recommends "$rt"
  fi
fi
