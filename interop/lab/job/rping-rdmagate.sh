#!/usr/bin/env bash
# Linux rping (rdmacm-utils) over siw on the guest's NIC against rdmagate's rping server on
# the host (soft iWARP, io.rdmagate.rdma.rping.RpingServer), through the forward: the MPA
# exchange, Sends, RDMA Read and RDMA Write between the kernel's siw and the Java provider,
# every ping's data compared by rping itself (-V).
set -uo pipefail
. /job/lib.sh
[ -f /job/env ] && . /job/env
rc=0
# net_up sets NIC, so it runs in this shell, not in check's subshell
if net_up; then result nic-up PASS "$NIC"; else result nic-up FAIL; lab_summary; exit 1; fi
check siw-nic bash -c "modprobe siw && rdma link add siw0 type siw netdev $NIC" || exit 1
last=$((RPING_COUNT - 1))
if timeout 120 stdbuf -oL -eL rping -c -v -a 10.0.2.100 -p "$RPING_PORT" -C "$RPING_COUNT" -S "$RPING_SIZE" -V > /job/rping.out 2>&1 \
        && grep -q "ping data: rdma-ping-$last: " /job/rping.out; then
    result rping-c-to-rdmagate PASS "$RPING_COUNT pings of $RPING_SIZE bytes verified"
else
    result rping-c-to-rdmagate FAIL "$(tail -c 600 /job/rping.out | tr '\n' ' ')"
    rc=1
fi
exit $rc
