#!/usr/bin/env bash
# One meaning per suffix: nd_X_release(p) frees what a caller-owned struct
# holds and leaves it empty (the struct itself lives on the stack or inside
# another object); nd_X_free(p) frees the object p points at. This renames
# every function whose name said the other thing, as whole words, in the
# sources, tests, fuzz targets, benchmarks and docs. Run it from anywhere in
# the repository; running it again changes nothing.
# Usage: scripts/dev/rename-release.sh [--check]
#   --check: change nothing, list what still uses an old name (exit 1 if any).
set -euo pipefail
cd "$(dirname "$0")/../.."

# old new: _free that frees contents becomes _release ...
renames='
nd_environ_free          nd_environ_release
nd_findings_free         nd_findings_release
nd_report_free           nd_report_release
nd_series_free           nd_series_release
nd_spawn_result_free     nd_spawn_result_release
nd_strbuf_free           nd_strbuf_release
nd_diff_result_free      nd_diff_result_release
nd_kb_logical_free       nd_kb_logical_release
nd_rank_set_free         nd_rank_set_release
nd_strv_free             nd_strv_release
nd_kb_rule_free          nd_kb_rule_release
nd_kb_ruleset_free       nd_kb_ruleset_release
nd_proc_registry_free    nd_proc_registry_release
nd_npu_compat_free       nd_npu_compat_release
nd_cuda_compat_free      nd_cuda_compat_release
nd_cann_driver_free      nd_cann_driver_release
nd_torch_wheels_free     nd_torch_wheels_release
nd_kvfile_free           nd_kvfile_release
nd_pyimport_free         nd_pyimport_release
nd_cuda_host_free        nd_cuda_host_release
nd_kb_occ_clear          nd_kb_occ_release
nd_linecache_clear       nd_linecache_slot_release
nd_outfile_release       nd_outfile_free
nd_nvml_release          nd_nvml_ctx_free
'
# ... and the last two freed the object itself, so they become _free.

mode=${1:-apply}
case "$mode" in
  apply|--check) ;;
  *) echo "rename-release: unknown option '$mode' (usage: $0 [--check])" >&2; exit 64 ;;
esac

# The new names must be free: a rename onto a name that exists would merge
# two functions.
olds=() news=()
while read -r old new; do
  [ -n "$old" ] || continue
  olds+=("$old"); news+=("$new")
done <<<"$renames"

mapfile -t files < <(git ls-files -- src tests fuzz bench docs |
                     grep -E '\.(c|h|sh|py|md|1)$' || true)
[ ${#files[@]} -gt 0 ] || { echo "rename-release: no files found (run inside the repository)" >&2; exit 66; }

if [ "$mode" = --check ]; then
  left=0
  for old in "${olds[@]}"; do
    if grep -nw -- "$old" "${files[@]}"; then left=1; fi
  done
  [ $left -eq 0 ] && echo "rename-release: no old name left"
  exit $left
fi

for i in "${!olds[@]}"; do
  old=${olds[$i]} new=${news[$i]}
  if grep -qw -- "$old" "${files[@]}" && grep -qw -- "$new" "${files[@]}"; then
    echo "rename-release: both $old and $new are in use; resolve by hand first" >&2
    grep -nw -- "$new" "${files[@]}" | head -5 >&2
    exit 1
  fi
done

script=()
for i in "${!olds[@]}"; do
  script+=(-e "s/\\b${olds[$i]}\\b/${news[$i]}/g")
done
changed=0
for f in "${files[@]}"; do
  if grep -qwE -- "$(IFS='|'; echo "${olds[*]}")" "$f"; then
    sed -i "${script[@]}" "$f"
    changed=$((changed + 1))
  fi
done
echo "rename-release: $changed files changed"
