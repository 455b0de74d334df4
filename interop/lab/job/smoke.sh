#!/usr/bin/env bash
# The lab's smoke job (runs in the guest): the soft RDMA devices come up, rping passes over
# siw and rxe, the guest's own NFS client mounts its knfsd over RDMA and its cifs mounts
# ksmbd over SMB Direct (a write and a read each, on both devices), rdmagate's `rdma devices`
# (when the lab gave the guest its class path) lists both devices as ibv_devinfo does, and, when HEALTH_PORT
# is set, the host's forwarded 10.0.2.100:HEALTH_PORT answers GET /health with "up".
set -uo pipefail
. /job/lib.sh
[ -f /job/env ] && . /job/env

echo "kernel $(uname -r)"
check modules-from-updates bash -c 'for m in siw cifs ksmbd; do modinfo -n $m | grep -q /updates/ || exit 1; done'

if [ -n "${HEALTH_PORT:-}" ]; then
    check nic-up net_up
    body=$(host_get "$HEALTH_PORT" /health 2>&1)
    if [[ $body == *'"status":"up"'* ]] && [[ $body == *"HTTP 200"* ]]; then
        result host-health PASS "$(echo "$body" | head -1 | cut -c1-300)"
    else
        result host-health FAIL "$body"
    fi
    # only the forwarded address answers: restrict=on keeps everything else out
    if timeout 10 curl -sS -o /dev/null "http://10.0.2.2:80/" 2>/dev/null; then
        result guest-restricted FAIL "10.0.2.2:80 answered"
    else
        result guest-restricted PASS "10.0.2.2:80 unreachable"
    fi
fi

check siw-up rdma_dummy siw
check rxe-up rdma_dummy rxe
# rdmagate's libibverbs binding (the verbs provider's device listing) against ibv_devinfo and sysfs
if [ -f /job/cp/classpath ]; then
    if out=$(rdma_devices_check 2>&1); then result rdma-devices PASS "$out"; else result rdma-devices FAIL "$out"; fi
    cat /job/rdma-devices.out
fi
check rping-siw rping_check "$SIW_ADDR"
check rping-rxe rping_check "$RXE_ADDR"

rw_check() {                                # rw_check MOUNTPOINT: 8 MiB out and back, cold cache
    head -c 8388608 /dev/urandom > /var/tmp/rw
    cp /var/tmp/rw "$1/rw" && sync && echo 3 > /proc/sys/vm/drop_caches \
        && cmp /var/tmp/rw "$1/rw" && rm "$1/rw"
}
mount_check() {                             # mount_check NAME TYPE SOURCE OPTIONS GREP
    local name=$1 type=$2 src=$3 opts=$4 want=$5 mnt=/mnt/$1
    mkdir -p "$mnt"
    if ! out=$(timeout 120 mount -t "$type" -o "$opts" "$src" "$mnt" 2>&1); then
        result "$name" FAIL "mount: $out $(dmesg | tail -5 | tr '\n' ' ')"
        return
    fi
    local line; line=$(grep " $mnt " /proc/mounts)
    if [[ $line == *$want* ]] && rw_check "$mnt"; then
        result "$name" PASS "$(echo "$line" | cut -d' ' -f1-4 | cut -c1-160)"
    else
        result "$name" FAIL "$line $(dmesg | tail -5 | tr '\n' ' ')"
    fi
    umount "$mnt"
}

if check knfsd-start start_knfsd /srv/nfs; then
    mount_check knfsd-rdma-siw nfs "$SIW_ADDR:/srv/nfs" vers=4.1,proto=rdma,port=20049 proto=rdma
    mount_check knfsd-rdma-rxe nfs "$RXE_ADDR:/srv/nfs" vers=3,proto=rdma,port=20049 proto=rdma
fi
if check ksmbd-start start_ksmbd /srv/smb; then
    mount_check ksmbd-smbdirect-siw cifs "//$SIW_ADDR/share" vers=3.1.1,rdma,username=lab,password=labpass ,rdma
    mount_check ksmbd-smbdirect-rxe cifs "//$RXE_ADDR/share" vers=3.1.1,rdma,username=lab,password=labpass ,rdma
fi
kernel_clean
lab_summary
