#!/usr/bin/env bash
# The verbs provider (io.rdmagate.rdma.verbs, libibverbs and librdmacm through java.lang.foreign)
# on the guest's soft RDMA devices, against Linux rping (rdmacm-utils), both ways, on rxe0 (RoCE)
# and siw0 (iWARP): `rdmagate rdma rping server` serves `rping -c -V`, and `rdmagate rdma rping
# client` pings `rping -s`; every ping's data is checked by the side that reads it.
set -uo pipefail
. /job/lib.sh
[ -f /job/env ] && . /job/env
COUNT=${RPING_COUNT:-20}
SIZE=${RPING_SIZE:-4096}
cp=$(cat /job/cp/classpath 2>/dev/null || echo '/job/cp/*')
# rdmagate rdma rping
read -ra rping_java <<< "java $(lab_jvm_opts) --enable-native-access=ALL-UNNAMED -cp $cp io.rdmagate.gateway.Main rdma rping"
check rxe-up rdma_dummy rxe || exit 1
check siw-up rdma_dummy siw || exit 1
for d in "rxe0 $RXE_ADDR 7174" "siw0 $SIW_ADDR 7176"; do
    set -- $d
    dev=$1 addr=$2 port=$3
    "${rping_java[@]}" server "$dev" "$addr" "$port" --size "$SIZE" > "/job/server-$dev.log" 2>&1 &
    pid=$!
    for _ in $(seq 240); do grep -q "listening on" "/job/server-$dev.log" && break; kill -0 $pid 2>/dev/null || break; sleep 0.5; done
    timeout 120 rping -c -v -a "$addr" -p "$port" -C "$COUNT" -S "$SIZE" -V > "/job/rping-c-$dev.out" 2>&1
    rc=$?
    timeout 60 tail --pid=$pid -f /dev/null
    kill $pid 2>/dev/null
    wait $pid
    src=$?
    if [ $rc = 0 ] && [ $src = 0 ] && grep -q "served $COUNT pings" "/job/server-$dev.log" \
            && grep -q "ping data: rdma-ping-$((COUNT - 1)): " "/job/rping-c-$dev.out"; then
        result "verbs-server-$dev" PASS "$(grep served "/job/server-$dev.log")"
    else
        result "verbs-server-$dev" FAIL "rping -c $rc, server $src: $(tail -3 "/job/server-$dev.log" | tr '\n' ' ' | cut -c1-300) | $(tail -2 "/job/rping-c-$dev.out" | tr '\n' ' ' | cut -c1-200)"
    fi
    port=$((port + 1))
    rping -s -v -a "$addr" -p "$port" -C "$COUNT" -S "$SIZE" > "/job/rping-s-$dev.out" 2>&1 &
    rp=$!
    for _ in $(seq 120); do                 # until its rdma_cm id listens (iproute2's rdma tool)
        rdma resource show cm_id 2>/dev/null | grep "state LISTEN" | grep -q "src-addr $addr:$port " && break
        sleep 0.5
    done
    timeout 180 "${rping_java[@]}" client "$dev" "$addr" "$port" --size "$SIZE" --count "$COUNT" > "/job/client-$dev.log" 2>&1
    crc=$?
    timeout 30 tail --pid=$rp -f /dev/null
    kill $rp 2>/dev/null
    wait $rp
    if [ $crc = 0 ] && grep -q "verified $COUNT of $COUNT pings" "/job/client-$dev.log"; then
        result "verbs-client-$dev" PASS "$(grep verified "/job/client-$dev.log")"
    else
        result "verbs-client-$dev" FAIL "client $crc: $(tail -3 "/job/client-$dev.log" | tr '\n' ' ' | cut -c1-300) | $(tail -2 "/job/rping-s-$dev.out" | tr '\n' ' ' | cut -c1-200)"
    fi
done
kernel_clean
lab_summary
