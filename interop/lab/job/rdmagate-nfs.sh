#!/usr/bin/env bash
# rdmagate on the host serving the guest's kernel NFS client: NFSv3 over TCP, then NFSv3 over
# RDMA with siw on the guest's NIC reaching rdmagate's soft iWARP through the forward. Each
# runs the common workload (workloads/nfs-workload.sh). Ports come from /job/env.
# Locks go to rdmagate's NLM: the guest's lockd finds it through rpcbind on 10.0.2.100:111
# (forwarded to rdmagate's embedded rpcbind) and reaches NLM_PORT through its own forward;
# mount.nfs wants the guest's own rpcbind and statd running for that. The workload's lock
# checks never block on a held lock, so no GRANTED callback into the guest is needed.
# Kerberos (workloads/nfs-krb5.sh): rpc.gssd with the keytab the host made, sec=krb5, krb5i and
# krb5p over TCP (NFSv3 and NFSv4.2) and over RDMA, the KDC reached through the forward of port 88.
set -uo pipefail
. /job/lib.sh
[ -f /job/env ] && . /job/env
export WORKLOAD_BIG_MIB=${WORKLOAD_BIG_MIB:-1024}
echo 1 > /proc/sys/kernel/panic_on_oops
rc=0

# net_up sets NIC, so it runs in this shell, not in check's subshell
if net_up; then result nic-up PASS "$NIC"; else result nic-up FAIL; lab_summary; exit 1; fi
check statd bash -c "rpcbind -w && rpc.statd --no-notify" || rc=1
opts=vers=3,port=$NFS_PORT,mountport=$MOUNT_PORT,mountproto=tcp
timeout 900 /job/workloads/nfs-workload.sh rdmagate-v3-tcp 10.0.2.100:/data "$opts,proto=tcp" || rc=1
timeout 300 /job/workloads/nfs-krb5.sh rdmagate-krb5-v3-tcp gw.example.test:/data "$opts,proto=tcp" || rc=1
timeout 300 /job/workloads/nfs-krb5.sh rdmagate-krb5i-v3-tcp gw.example.test:/data "$opts,proto=tcp" krb5i || rc=1
timeout 300 /job/workloads/nfs-krb5.sh rdmagate-krb5-v42-tcp gw.example.test:/data "vers=4.2,port=$NFS_PORT" || rc=1
timeout 300 /job/workloads/nfs-krb5.sh rdmagate-krb5p-v42-tcp gw.example.test:/data "vers=4.2,port=$NFS_PORT" krb5p || rc=1

check siw-nic bash -c "modprobe siw && rdma link add siw0 type siw netdev $NIC" || rc=1
opts=vers=3,proto=rdma,port=$RDMA_PORT,mountport=$MOUNT_PORT,mountproto=tcp
WORKLOAD_BIG_MIB=${RDMA_BIG_MIB:-$WORKLOAD_BIG_MIB} timeout 1500 \
    /job/workloads/nfs-workload.sh rdmagate-v3-rdma 10.0.2.100:/data "$opts" || rc=1
timeout 900 /job/workloads/rdma-chunks.sh rdmagate-v3-rdma-chunks 10.0.2.100:/data "$opts" || rc=1
timeout 300 /job/workloads/nfs-krb5.sh rdmagate-krb5-v3-rdma gw.example.test:/data "$opts" || rc=1
timeout 300 /job/workloads/nfs-krb5.sh rdmagate-krb5i-v3-rdma gw.example.test:/data "$opts" krb5i || rc=1
timeout 300 /job/workloads/nfs-krb5.sh rdmagate-krb5p-v3-rdma gw.example.test:/data "$opts" krb5p || rc=1

# what a user types: -o rdma and the port, no version: the client mounts NFSv4.2, which the gateway
# serves beside NFSv3 and NFSv4.1 by default
mkdir -p /mnt/plain
line=
if timeout 180 mount -t nfs -o rdma,port=$RDMA_PORT 10.0.2.100:/data /mnt/plain \
        && line=$(grep " /mnt/plain nfs4 " /proc/mounts) && [[ $line == *vers=4.2*proto=rdma* ]] \
        && echo plain > /mnt/plain/plain-rdma && [ "$(cat /mnt/plain/plain-rdma)" = plain ] \
        && rm /mnt/plain/plain-rdma && umount /mnt/plain; then
    result rdma-no-version PASS "$(echo "$line" | cut -d' ' -f4 | tr ',' '\n' | grep -E '^(vers|proto|port)=' | tr '\n' ' ')"
else
    result rdma-no-version FAIL "mount -o rdma,port=$RDMA_PORT: ${line:-not mounted}"; rc=1
fi

kernel_clean || rc=1
exit $rc
