#!/usr/bin/env bash
# rdmagate restarted under a copy over NFS/RDMA: the guest mounts rdmagate (host) over RDMA
# (siw on its NIC) and writes a file with O_DIRECT 1 MiB writes; the host test restarts the
# gateway when part of the file has arrived. The hard mount must ride it out: reconnect, resend
# what the restart lost (the write verifier changed), and the file must read back intact
# through a fresh mount. Ports and size come from /job/env. RESTART_OPTS mounts otherwise (NFSv4.1);
# with RESTART_LOCK=1 another process holds an fcntl lock on a file of the mount across the restart,
# which must still refuse a third process afterwards (NFSv4.1 reclaims it in the grace period).
set -uo pipefail
. /job/lib.sh
[ -f /job/env ] && . /job/env
echo 1 > /proc/sys/kernel/panic_on_oops
rc=0
if net_up; then result nic-up PASS "$NIC"; else result nic-up FAIL; lab_summary; exit 1; fi
check siw-nic bash -c "modprobe siw && rdma link add siw0 type siw netdev $NIC" || rc=1
opts=${RESTART_OPTS:-vers=3,proto=rdma,port=$RDMA_PORT,mountport=$MOUNT_PORT,mountproto=tcp,nolock}
mnt=/mnt/restart
mkdir -p $mnt
check mount timeout 120 mount -t nfs -o "$opts" 10.0.2.100:/data $mnt || { lab_summary; exit 1; }
head -c $((RESTART_MIB << 20)) /dev/urandom > /tmp/src
if [ "${RESTART_LOCK:-0}" = 1 ]; then
    echo x > $mnt/locked.dat
    if hold_lock fcntl $mnt/locked.dat; then result lock-held PASS; else result lock-held FAIL; rc=1; fi
fi
t0=$(date +%s)
if dd if=/tmp/src of=$mnt/restart.bin bs=1M oflag=direct conv=fsync status=none; then
    result copy PASS "$RESTART_MIB MiB in $(( $(date +%s) - t0 )) s across the restart"
else
    result copy FAIL "dd failed"; rc=1
fi
if [ "${RESTART_LOCK:-0}" = 1 ]; then
    if try_lock fcntl $mnt/locked.dat; then result lock-survives FAIL "another process got the lock held across the restart"; rc=1
    else result lock-survives PASS "still refused to another process after the restart"; fi
    release_lock
    if try_lock fcntl $mnt/locked.dat; then result lock-released PASS
    else result lock-released FAIL "still refused after the holder ended"; rc=1; fi
fi
umount $mnt && sync && echo 3 > /proc/sys/vm/drop_caches
check remount timeout 120 mount -t nfs -o "$opts" 10.0.2.100:/data $mnt || rc=1
if cmp -s /tmp/src $mnt/restart.bin; then
    result intact PASS "read back equal through a fresh mount"
else
    result intact FAIL "$(cmp /tmp/src $mnt/restart.bin 2>&1 | head -1)"; rc=1
fi
umount $mnt
kernel_clean || rc=1
exit $rc
