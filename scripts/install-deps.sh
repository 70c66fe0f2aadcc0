#!/bin/sh
# Installs the Debian packages npu-doctor needs to build and test, and only
# those that are missing. As non-root it prints the command instead.
# Usage: scripts/install-deps.sh [build|test|fuzz]   (default: test)
set -eu

what=${1:-test}
build_pkgs="cmake make gcc pkg-config libvectorscan-dev libjansson-dev libinih-dev zlib1g-dev"
test_pkgs="libcmocka-dev clang python3 python3-torch python3-psutil python3-yaml procps"
fuzz_pkgs="clang libclang-rt-14-dev"
bench_pkgs="ripgrep hyperfine lsof python3-psutil python3-torch"

case "$what" in
  build) pkgs=$build_pkgs ;;
  test) pkgs="$build_pkgs $test_pkgs" ;;
  fuzz) pkgs="$build_pkgs $fuzz_pkgs" ;;
  bench) pkgs="$build_pkgs $test_pkgs $bench_pkgs" ;;
  *) echo "install-deps: unknown set '$what' (build|test|fuzz|bench)" >&2; exit 64 ;;
esac

missing=""
for p in $pkgs; do
  case " $missing " in *" $p "*) continue ;; esac
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  case "$status" in
    *"install ok installed"*) ;;
    *) missing="$missing $p" ;;
  esac
done

[ -z "$missing" ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
  echo "npu-doctor needs these packages:$missing" >&2
  echo "run: sudo apt-get update && sudo apt-get install -y$missing" >&2
  exit 1
fi

echo "installing:$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing
