#!/usr/bin/env bash
# What an NFS mount over RDMA must carry in each chunk type, beyond the common workload:
#
#   rdma-chunks.sh LABEL SERVER:/EXPORT MOUNT_OPTIONS
#
#   big-directory   20 000 entries listed through a fresh mount (READDIRPLUS replies far over
#                   the inline size: the reply chunk), names and count compared
#   long-symlink    a 4000-byte symlink target read back through a fresh mount (READLINK: its
#                   text is DDP-eligible, RFC 8267 §4.3)
#   concurrent-dd   4 dd processes write their own 16 MiB at once, then 4 read them back at once
#                   through a fresh mount (read and write chunks in parallel); checksums equal
#
# Each check remounts so that nothing comes from the client's caches.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "${LAB_LIB:-$here/../lib.sh}"

label=$1 source=$2 opts=$3
mnt=/mnt/$label
mkdir -p "$mnt"
remount() {
    mountpoint -q "$mnt" && umount "$mnt"
    sync; echo 3 > /proc/sys/vm/drop_caches
    timeout 120 mount -t nfs -o "$opts" "$source" "$mnt"
}
if ! out=$(remount 2>&1); then
    result "$label/mount" FAIL "$out"
    lab_summary
    exit 1
fi
d=$mnt/rdma-chunks.$$
mkdir -p "$d"

mkdir "$d/big" && (cd "$d/big" && seq -f 'entry-%05g' 20000 | xargs touch)
remount
got=$(ls -f "$d/big" | grep -c '^entry-')
want=$(seq -f 'entry-%05g' 20000 | sha256sum)
have=$(ls -f "$d/big" | grep '^entry-' | sort | sha256sum)
if [ "$got" = 20000 ] && [ "$want" = "$have" ]; then
    result "$label/big-directory" PASS "20000 entries listed"
else
    result "$label/big-directory" FAIL "listed $got entries"
fi

target=$(for i in $(seq 400); do printf 'component/'; done)
ln -s "$target" "$d/long-link"
remount
back=$(readlink "$d/long-link")
if [ "${#back}" = 4000 ] && [ "$back" = "$target" ]; then
    result "$label/long-symlink" PASS "4000-byte target"
else
    result "$label/long-symlink" FAIL "read back ${#back} bytes"
fi

for i in 1 2 3 4; do head -c $((16 << 20)) /dev/urandom > "/tmp/dd-src.$i"; done
for i in 1 2 3 4; do dd if="/tmp/dd-src.$i" of="$d/dd.$i" bs=1M conv=fsync status=none & done
wait
remount
for i in 1 2 3 4; do dd if="$d/dd.$i" of="/tmp/dd-back.$i" bs=1M status=none & done
wait
ok=1
for i in 1 2 3 4; do cmp -s "/tmp/dd-src.$i" "/tmp/dd-back.$i" || ok=0; done
if [ $ok = 1 ]; then
    result "$label/concurrent-dd" PASS "4 x 16 MiB written and read back at once"
else
    result "$label/concurrent-dd" FAIL "contents differ"
fi
rm -f /tmp/dd-src.* /tmp/dd-back.*

rm -rf "$d"
umount "$mnt"
lab_summary
