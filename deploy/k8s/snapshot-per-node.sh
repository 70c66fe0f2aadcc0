#!/bin/sh
# A snapshot Job on every NPU node, then the nodes that differ.
#   deploy/k8s/snapshot-per-node.sh [NODE-SELECTOR] [DIR]
# Default selector: accelerator=huawei-Ascend910 (use the label your NPU nodes carry).
set -u

selector=${1:-accelerator=huawei-Ascend910}
dir=${2:-npu-doctor-snapshots}
here=$(dirname "$0")
kubectl=${KUBECTL:-kubectl}
nd=${NPU_DOCTOR:-npu-doctor}
mkdir -p "$dir"

nodes=$("$kubectl" get nodes -l "$selector" -o jsonpath='{.items[*].metadata.name}') || exit 1
if [ -z "$nodes" ]; then
    echo "no node matches $selector" >&2
    exit 66
fi
for node in $nodes; do
    sed "s/__NODE__/$node/g" "$here/snapshot-job.yaml" | "$kubectl" apply -f - || exit 1
done
"$kubectl" wait --for=condition=complete job -l app=npu-doctor-snapshot --timeout=300s || true
for node in $nodes; do
    "$kubectl" logs "job/npu-doctor-snapshot-$node" >"$dir/snap-$node.json" ||
        echo "no snapshot from $node" >&2
done
rc=0
"$nd" diff "$dir"/snap-*.json || rc=$?
[ "$rc" -le 1 ] || exit "$rc"
exit 0
