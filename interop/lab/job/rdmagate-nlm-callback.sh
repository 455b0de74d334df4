#!/usr/bin/env bash
# NLM GRANTED callbacks to a real client: rdmagate runs IN the guest (class path /job/cp, JDK
# /opt/jdk), in a network namespace of its own (veth, 10.1.0.2, embedded rpcbind), and the
# guest's kernel NFSv3 client mounts it from the root namespace (10.1.0.1, the system rpcbind
# with the kernel's lockd and rpc.statd). Through the host's forwards every client looks like
# 127.0.0.1 and a callback cannot reach it; here the gateway sees the client's own address.
# A process holds an fcntl lock on a file through the guest's cifs mount of the same gateway and
# a process on the NFS mount blocks in flock (an NLM LOCK that waits: the gateway first recalls
# the cifs lease under which cifs keeps the lock locally); when the cifs holder lets go, the
# gateway calls NLM4_GRANTED back and the NFS process has the lock at once. Without the callback
# Linux asks again only every 30 s. (The holder is not a second NFS process: the Linux client
# queues conflicting locks of its own processes locally, never asking the server.)
set -uo pipefail
. /job/lib.sh
[ -f /job/env ] && . /job/env
echo 1 > /proc/sys/kernel/panic_on_oops
rc=0
GW=10.1.0.2 N=/mnt/nfs S=/mnt/smb

check statd bash -c "rpcbind -w && rpc.statd --no-notify" || rc=1
check netns bash -c "ip netns add gw && ip link add vh type veth peer name vg && ip link set vg netns gw \
    && ip addr add 10.1.0.1/24 dev vh && ip link set vh up && ip netns exec gw ip link set lo up \
    && ip netns exec gw ip addr add $GW/24 dev vg && ip netns exec gw ip link set vg up" || { lab_summary; exit 1; }
mkdir -p /srv/rdmagate /var/lib/rdmagate $N $S
cat > /tmp/rdmagate.yaml <<CONF
stateDir: /var/lib/rdmagate
http: {address: 127.0.0.1, port: 9049}
exports:
  - name: data
    path: /srv/rdmagate
    nfsPath: /data
    clients: [{match: "*", rootSquash: false}]
shares:
  - {name: data, export: data}
users:
  - {name: $SMB_USER, uid: 0, gid: 0, ntHash: $SMB_NTHASH}
transports:
  rpcbind: {mode: embedded, port: 111}
CONF
start_rdmagate /tmp/rdmagate.yaml /var/lib/rdmagate 111 gw $GW || { lab_summary; exit 1; }

# the gateway's NLM call counters (its /metrics, inside its namespace), one line
nlm_view() {
    ip netns exec gw curl -sS --max-time 10 http://127.0.0.1:9049/metrics | grep '^rdmagate_nfs_requests_total{.*program="nlm"' \
        | sed 's/rdmagate_nfs_requests_total//' | tr '\n' ' '
}

# NLM LOCK calls the gateway has answered
nlm_locks() {
    ip netns exec gw curl -sS --max-time 10 http://127.0.0.1:9049/metrics \
        | awk '/^rdmagate_nfs_requests_total\{.*procedure="LOCK".*program="nlm"/ { n += $2 } END { print n + 0 }'
}

if ! check nfs-mount timeout 180 mount -t nfs -o vers=3,proto=tcp $GW:/data $N; then
    kill $GATEWAY; lab_summary; exit 1
fi
check cifs-mount timeout 120 mount -t cifs -o "vers=3.1.1,username=$SMB_USER,password=$SMB_PASSWORD" \
    //$GW/data $S || rc=1
echo x > $N/granted.dat
rm -f /tmp/held /tmp/got
# fcntl(F_SETLK, F_WRLCK) on the whole file through cifs, marking /tmp/held, kept until killed
perl -e 'use Fcntl; open(my $fh, "+<", $ARGV[0]) or die "open: $!";
    my $lk = pack("s s x4 q q i x4", F_WRLCK, 0, 0, 0, 0); fcntl($fh, F_SETLK, $lk) or die "lock: $!";
    open(my $o, ">", "/tmp/held") or die; close $o; sleep 600;' $S/granted.dat &
HOLDER=$!
for _ in $(seq 600); do [ -e /tmp/held ] && break; sleep 0.1; done
if [ -e /tmp/held ]; then result lock-held PASS; else result lock-held FAIL "no cifs lock in 60 s"; rc=1; fi
before=$(nlm_locks)
flock -x $N/granted.dat sh -c 'date +%s%N > /tmp/got' &
WAITER=$!
for _ in $(seq 300); do [ "$(nlm_locks)" -gt "$before" ] && break; sleep 0.1; done
if [ "$(nlm_locks)" -gt "$before" ] && [ ! -e /tmp/got ]; then result lock-blocked PASS "$(nlm_view)"
else result lock-blocked FAIL "the NFS LOCK never reached the gateway, or it got the lock the cifs process holds: before $before, now $(nlm_view)"; rc=1; fi
t0=$(date +%s%N)
kill $HOLDER 2>/dev/null; wait $HOLDER 2>/dev/null
for _ in $(seq 900); do [ -s /tmp/got ] && break; sleep 0.1; done
if [ -s /tmp/got ]; then
    ms=$(( ($(cat /tmp/got) - t0) / 1000000 ))
    if [ $ms -lt 10000 ]; then result nlm-granted-callback PASS "the waiter had the lock $ms ms after the release"
    else result nlm-granted-callback FAIL "the waiter had the lock only after $ms ms (a re-poll, not the callback)"; rc=1; fi
else
    result nlm-granted-callback FAIL "the waiter never had the lock"; rc=1
fi
wait $WAITER 2>/dev/null
if grep -q "did not take the GRANTED callback" "$GATEWAY_LOG"; then
    result callback-taken FAIL "$(grep "GRANTED" "$GATEWAY_LOG" | tail -2 | tr '\n' ' ')"; rc=1
else result callback-taken PASS; fi

if timeout 60 umount $N; then result nfs-unmount PASS; else result nfs-unmount FAIL; rc=1; fi
timeout 60 umount $S
kill -TERM $GATEWAY
wait $GATEWAY
kernel_clean || rc=1
lab_summary || rc=1
exit $rc
