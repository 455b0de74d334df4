#!/usr/bin/env bash
# The workloads against the guest's own kernel servers, so they are known-good before
# rdmagate serves them: knfsd (NFSv3, v4.1, v4.2 over TCP and over RDMA on siw) and ksmbd
# (SMB 3.1.1 over TCP and over SMB Direct on siw). PEERS picks the servers ("nfs smb").
set -uo pipefail
. /job/lib.sh
[ -f /job/env ] && . /job/env
PEERS=${PEERS:-nfs smb}
export WORKLOAD_BIG_MIB=${WORKLOAD_BIG_MIB:-1024}
rc=0
# a peer oops ends the boot at once (panic=-1: reboot, and qemu -no-reboot exits) instead
# of leaving the workload hung until the timeout; the console log keeps the trace
echo 1 > /proc/sys/kernel/panic_on_oops

check siw-up rdma_dummy siw || exit 1
if [[ " $PEERS " == *" nfs "* ]]; then
    check knfsd-start start_knfsd /srv/nfs || exit 1
    for vers in 3 4.1 4.2; do
        for proto in tcp rdma; do
            opts=vers=$vers,proto=$proto
            [ $proto = rdma ] && opts+=,port=20049
            timeout 600 /job/workloads/nfs-workload.sh "knfsd-v$vers-$proto" "$SIW_ADDR:/srv/nfs" "$opts" || rc=1
        done
    done
fi
if [[ " $PEERS " == *" smb "* ]]; then
    check ksmbd-start start_ksmbd /srv/smb || exit 1
    for t in tcp rdma; do
        opts=vers=3.1.1,username=lab,password=labpass,mfsymlinks
        [ $t = rdma ] && opts+=,rdma
        timeout 600 /job/workloads/cifs-workload.sh "ksmbd-3.1.1-$t" "//$SIW_ADDR/share" "$opts" || rc=1
    done
fi
kernel_clean || rc=1
exit $rc
