#!/usr/bin/env bash
# NFS client workload, run inside the guest by the kernel NFS client.
#
#   nfs-workload.sh LABEL SERVER:/EXPORT MOUNT_OPTIONS
#   e.g. nfs-workload.sh knfsd-v4.1-rdma 10.200.0.2:/srv/nfs vers=4.1,proto=rdma,port=20049
#
# Mounts, runs the common workload (workloads/fs-workload.sh: small-file tree and a large
# file in and out with checksums, namespace operations, symbolic and hard links, ls -l
# attributes, flock and fcntl locks from two processes, concurrent writers), checks that
# the mount uses the transport asked for, and unmounts. One "RESULT LABEL/check PASS|FAIL"
# line per check; exit status 1 if any failed. Sizes: WORKLOAD_BIG_MIB, WORKLOAD_FILES.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "${LAB_LIB:-$here/../lib.sh}"
. "$here/fs-workload.sh"

label=$1 source=$2 opts=$3
mnt=/mnt/$label
mkdir -p "$mnt"
if ! out=$(timeout 120 mount -t nfs -o "$opts" "$source" "$mnt" 2>&1); then
    result "$label/mount" FAIL "mount -t nfs -o $opts $source: $out"
    lab_summary
    exit 1
fi
line=$(grep " $mnt " /proc/mounts)
want_proto=tcp
[[ ,$opts, == *,proto=rdma,* ]] && want_proto=rdma
want_vers=${opts#*vers=}
want_vers=${want_vers%%,*}
# without nolock every flock/fcntl lock must go to the server (NLM for v3): local_lock=none
want_lock=local_lock=none
[[ ,$opts, == *,nolock,* ]] && want_lock=local_lock=all
if [[ $line == *proto=$want_proto* ]] && [[ $line == *vers=$want_vers* ]] \
        && { [[ $want_vers == 4* ]] || [[ $line == *$want_lock* ]]; }; then
    result "$label/mount" PASS "$(echo "$line" | cut -d' ' -f1-4 | cut -c1-200)"
else
    result "$label/mount" FAIL "wanted vers=$want_vers proto=$want_proto $want_lock: $line"
fi

fs_workload "$label" "$mnt" "mode symlink hardlink"

if timeout 60 umount "$mnt" && ! grep -q " $mnt " /proc/mounts; then
    result "$label/unmount" PASS
else
    result "$label/unmount" FAIL "$(grep " $mnt " /proc/mounts)"
fi
lab_summary
