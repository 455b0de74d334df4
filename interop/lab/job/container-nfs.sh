#!/usr/bin/env bash
# The containerised rdmagate (ContainerImageTest) serving the guest's kernel NFS client: a plain
# NFSv3-over-TCP mount with no ports given; every port the client dials (rpcbind 111, NFS, MOUNT,
# NLM, NSM) is forwarded under its own number to the container's published port on the host.
set -uo pipefail
. /job/lib.sh
[ -f /job/env ] && . /job/env
export WORKLOAD_BIG_MIB=${WORKLOAD_BIG_MIB:-1024}
echo 1 > /proc/sys/kernel/panic_on_oops
rc=0
if net_up; then result nic-up PASS "$NIC"; else result nic-up FAIL; lab_summary; exit 1; fi
# the guest's rpcbind and statd, which mount.nfs wants for NLM locks
check statd bash -c "rpcbind -w && rpc.statd --no-notify" || rc=1
# MOUNT and NLM are found through the container's rpcbind on 10.0.2.100:111
timeout 900 /job/workloads/nfs-workload.sh container-v3-tcp 10.0.2.100:/data vers=3,proto=tcp || rc=1
kernel_clean || rc=1
exit $rc
