#!/bin/sh
# One snapshot per node with MPI (no Slurm), then the nodes that differ.
#   deploy/mpi/snapshot-mpirun.sh HOSTFILE [DIR]
# DIR must be on a file system every node can write (NFS, Lustre...).
# Open MPI: --map-by ppr:1:node starts exactly one process per node.
# MPICH / Intel MPI: use "mpirun -f HOSTFILE -ppn 1" instead.
set -u

if [ $# -lt 1 ]; then
    echo "usage: $0 HOSTFILE [DIR]" >&2
    exit 64
fi
hostfile=$1
dir=${2:-npu-doctor-snapshots}
nd=${NPU_DOCTOR:-npu-doctor}
mpirun=${MPIRUN:-mpirun}
mkdir -p "$dir"

# -x forwards the variables the snapshot should see from this shell.
"$mpirun" --hostfile "$hostfile" --map-by ppr:1:node -x PATH -x LD_LIBRARY_PATH \
    "$nd" snapshot -q -o "$dir/snap-%n.json" || exit 1

rc=0
"$nd" diff "$dir"/snap-*.json || rc=$?
[ "$rc" -le 1 ] || exit "$rc"
exit 0
