#!/usr/bin/env bash
# rdmagate on the host serving the guest's kernel cifs client: SMB 3.1.1 over TCP through the
# forward of SMB_PORT, then sealed (seal: SMB 3 encryption), then over SMB Direct (rdma: siw on
# the guest's NIC reaching rdmagate's soft iWARP through the forward of 5445, the port Linux
# dials), each running the common workload (workloads/cifs-workload.sh); and, over TCP, Windows
# ACLs set and read with cifs-utils (workloads/cifs-acl.sh), and Kerberos logons (sec=krb5, signed
# and sealed) with a ticket cache the host made (workloads/cifs-krb5.sh). Port and user come from
# /job/env.
set -uo pipefail
. /job/lib.sh
[ -f /job/env ] && . /job/env
export WORKLOAD_BIG_MIB=${WORKLOAD_BIG_MIB:-1024}
echo 1 > /proc/sys/kernel/panic_on_oops
rc=0

if net_up; then result nic-up PASS "$NIC"; else result nic-up FAIL; lab_summary; exit 1; fi
base=vers=3.1.1,port=$SMB_PORT,username=$SMB_USER,password=$SMB_PASSWORD,mfsymlinks
timeout 900 /job/workloads/cifs-workload.sh rdmagate-3.1.1-tcp //10.0.2.100/data "$base" || rc=1
timeout 900 /job/workloads/cifs-workload.sh rdmagate-3.1.1-seal //10.0.2.100/data "$base,seal" || rc=1
timeout 300 /job/workloads/cifs-acl.sh rdmagate-acl //10.0.2.100/data "$base,closetimeo=0" || rc=1
timeout 300 /job/workloads/cifs-krb5.sh rdmagate-krb5 //gw.example.test/data "vers=3.1.1,port=$SMB_PORT,ip=10.0.2.100" || rc=1

check siw-nic bash -c "modprobe siw && rdma link add siw0 type siw netdev $NIC" || rc=1
direct=vers=3.1.1,rdma,username=$SMB_USER,password=$SMB_PASSWORD,mfsymlinks
timeout 900 /job/workloads/cifs-workload.sh rdmagate-3.1.1-rdma //10.0.2.100/data "$direct" || rc=1

# multichannel: each mount asks for a second channel, which cifs binds to its session. The
# gateway lists 10.0.2.100 twice, with and without RDMA, as Linux puts only channels of the
# primary's kind on an interface: the TCP mount gets a TCP channel, the SMB Direct mount an SMB
# Direct one (two queue pairs, one session)
multichannel() {                            # multichannel LABEL OPTIONS
    local label=$1 opts=$2 mc=/mnt/rdmagate-$1 extra
    mkdir -p "$mc"
    if ! timeout 180 mount -t cifs -o "$opts,multichannel,max_channels=2" //10.0.2.100/data "$mc"; then
        result "$label/channels" FAIL "mount failed: $(dmesg | tail -5 | tr '\n' ' ')"
        return 1
    fi
    extra=$(grep -oE 'Extra Channels: *[0-9]+' /proc/fs/cifs/DebugData | head -1)
    if [[ $extra =~ :\ *1$ ]]; then
        result "$label/channels" PASS "$extra"
    else
        result "$label/channels" FAIL "${extra:-no extra channel}: $(sed -n '/Server interfaces/,/^$/p' /proc/fs/cifs/DebugData | head -14 | tr '\n' ' ')"
    fi
    head -c 8M /dev/urandom > /tmp/mc.src
    check "$label/io" bash -c "cp /tmp/mc.src $mc/mc.bin && echo 3 > /proc/sys/vm/drop_caches && cmp /tmp/mc.src $mc/mc.bin && rm $mc/mc.bin"
    timeout 60 umount "$mc" && result "$label/unmount" PASS || result "$label/unmount" FAIL
}
multichannel multichannel-tcp "$base" || rc=1
multichannel multichannel-rdma "$direct" || rc=1

kernel_clean || rc=1
exit $rc
