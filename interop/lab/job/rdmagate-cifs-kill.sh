#!/usr/bin/env bash
# rdmagate (host) killed with SIGKILL under a cifs client on SMB Direct: the guest mounts over
# SMB Direct (siw on its NIC, the forward of 5445), writes a file and fsyncs it (SMB2 FLUSH), then
# writes kill-now; the host kills the gateway once it sees that file, starts it again on the same
# state and writes restarted into the export. The mount must reconnect by itself (restarted shows
# through it), the flushed file must read back intact through it and through a fresh mount.
# User and size come from /job/env.
set -uo pipefail
. /job/lib.sh
[ -f /job/env ] && . /job/env
echo 1 > /proc/sys/kernel/panic_on_oops
rc=0
if net_up; then result nic-up PASS "$NIC"; else result nic-up FAIL; lab_summary; exit 1; fi
check siw-nic bash -c "modprobe siw && rdma link add siw0 type siw netdev $NIC" || rc=1
opts=vers=3.1.1,rdma,username=$SMB_USER,password=$SMB_PASSWORD
mnt=/mnt/killed
mkdir -p $mnt
neighbour 10.0.2.100 5445
check mount timeout 180 mount -t cifs -o "$opts" //10.0.2.100/data $mnt || { lab_summary; exit 1; }
head -c $((KILL_MIB << 20)) /dev/urandom > /tmp/src
check flushed dd if=/tmp/src of=$mnt/flushed.bin bs=1M conv=fsync status=none || rc=1
check kill-now bash -c "echo now | dd of=$mnt/kill-now conv=fsync status=none" || rc=1
t0=$(date +%s)
back=
while [ $(( $(date +%s) - t0 )) -lt 300 ]; do
    if [ -e $mnt/restarted ]; then back=1; break; fi
    sleep 1                                 # the host's restart shows through the mount once cifs reconnects
done
if [ -n "$back" ]; then result reconnect PASS "the mount reconnected to the restarted gateway in $(( $(date +%s) - t0 )) s"
else result reconnect FAIL "restarted never showed through the mount: $(dmesg | grep -i cifs | tail -3 | tr '\n' ' ')"; rc=1; fi
sync && echo 3 > /proc/sys/vm/drop_caches
if cmp -s /tmp/src $mnt/flushed.bin; then result intact PASS "read back equal through the reconnected mount"
else result intact FAIL "$(cmp /tmp/src $mnt/flushed.bin 2>&1 | head -1)"; rc=1; fi
timeout 60 umount $mnt || umount -l $mnt
check remount timeout 180 mount -t cifs -o "$opts" //10.0.2.100/data $mnt || rc=1
if cmp -s /tmp/src $mnt/flushed.bin; then result intact-fresh-mount PASS
else result intact-fresh-mount FAIL "$(cmp /tmp/src $mnt/flushed.bin 2>&1 | head -1)"; rc=1; fi
timeout 60 umount $mnt && result unmount PASS || result unmount FAIL
kernel_clean || rc=1
exit $rc
