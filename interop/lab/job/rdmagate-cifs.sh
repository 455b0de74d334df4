#!/usr/bin/env bash
# rdmagate on the host serving the guest's kernel cifs client: SMB 3.1.1 over TCP through the
# forward of SMB_PORT, then sealed (seal: SMB 3 encryption), then over SMB Direct (rdma: siw on
# the guest's NIC reaching rdmagate's soft iWARP through the forward of 5445, the port Linux
# dials), each running the common workload (workloads/cifs-workload.sh). Port and user come from
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

check siw-nic bash -c "modprobe siw && rdma link add siw0 type siw netdev $NIC" || rc=1
direct=vers=3.1.1,rdma,username=$SMB_USER,password=$SMB_PASSWORD,mfsymlinks
timeout 900 /job/workloads/cifs-workload.sh rdmagate-3.1.1-rdma //10.0.2.100/data "$direct" || rc=1

kernel_clean || rc=1
exit $rc
