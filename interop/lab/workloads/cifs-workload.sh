#!/usr/bin/env bash
# SMB client workload, run inside the guest by the kernel cifs client.
#
#   cifs-workload.sh LABEL //SERVER/SHARE MOUNT_OPTIONS
#   e.g. cifs-workload.sh ksmbd-rdma //10.200.0.2/share vers=3.1.1,rdma,username=lab,password=labpass
#
# Mounts, runs the common workload (workloads/fs-workload.sh) and unmounts, like
# nfs-workload.sh. SMB 3.1.1 without the POSIX extensions keeps no Unix mode, so the mode
# is checked only when the options include "posix"; symbolic links are checked when the
# options include "mfsymlinks" or "posix"; hard links always (SMB2 FileLinkInformation).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "${LAB_LIB:-$here/../lib.sh}"
. "$here/fs-workload.sh"

label=$1 source=$2 opts=$3
mnt=/mnt/$label
mkdir -p "$mnt"
if ! out=$(timeout 120 mount -t cifs -o "$opts" "$source" "$mnt" 2>&1); then
    result "$label/mount" FAIL "mount -t cifs -o $opts $source: $out"
    dmesg | tail -20
    lab_summary
    exit 1
fi
line=$(grep " $mnt " /proc/mounts)
want_rdma=0
[[ ,$opts, == *,rdma,* ]] && want_rdma=1
has_rdma=0
[[ $line == *,rdma,* || $line == *,rdma ]] && has_rdma=1
want_vers=${opts#*vers=}
want_vers=${want_vers%%,*}
if [ $want_rdma = $has_rdma ] && [[ $line == *vers=$want_vers* ]]; then
    result "$label/mount" PASS "$(echo "$line" | cut -d' ' -f1-3) rdma=$has_rdma vers=$want_vers"
else
    result "$label/mount" FAIL "wanted vers=$want_vers rdma=$want_rdma: $line"
fi

caps=hardlink
[[ ,$opts, == *,mfsymlinks,* || ,$opts, == *,posix,* ]] && caps+=" symlink"
[[ ,$opts, == *,posix,* ]] && caps+=" mode"
fs_workload "$label" "$mnt" "$caps"

if timeout 60 umount "$mnt" && ! grep -q " $mnt " /proc/mounts; then
    result "$label/unmount" PASS
else
    result "$label/unmount" FAIL "$(grep " $mnt " /proc/mounts)"
fi
lab_summary
