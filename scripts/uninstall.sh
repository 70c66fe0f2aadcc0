#!/bin/sh
# Removes what `cmake --install` put in place, as its manifest lists, and the
# folders of ours left empty. Never removes anything the manifest does not name.
# Usage: scripts/uninstall.sh BUILD_DIR
set -eu
manifest=${1:?usage: scripts/uninstall.sh BUILD_DIR}/install_manifest.txt
[ -f "$manifest" ] || { echo "uninstall: $manifest not found: nothing was installed from this build" >&2; exit 66; }
while IFS= read -r f || [ -n "$f" ]; do
  [ -n "$f" ] || continue
  if [ -f "$f" ] || [ -L "$f" ]; then rm -f -- "$f"; echo "removed $f"; fi
  # Folders that only held our files: npu-doctor's own, bash-completion's leaf.
  d=$(dirname -- "$f")
  case "$d" in
    */npu-doctor/rules.d) rmdir -- "$d" "$(dirname -- "$d")" 2>/dev/null || true ;;
    */doc/npu-doctor) rmdir -- "$d" 2>/dev/null || true ;;
  esac
done <"$manifest"
rm -f -- "$manifest"
