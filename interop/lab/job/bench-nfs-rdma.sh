#!/usr/bin/env bash
# rdmagate against the guest's own knfsd, both over RPC-over-RDMA on the same siw link, through
# the same kernel NFS client: rdmagate runs IN the guest (its class path in /job/cp, the JDK
# shared at /opt/jdk), each server exports a directory of the guest's disk, the client mounts
# each with vers=3 (or BENCH_VERS=4.1),proto=rdma over siw on rd0 (10.200.0.2) and runs the same load: dd of
# BENCH_MIB MiB written and read back with O_DIRECT 1 MiB requests, then fio 4 KiB random
# reads at queue depth 16 for BENCH_SECONDS, after warm-up passes of each (the JIT under TCG;
# BENCH_WARM_SECONDS, 300, of random reads before they are measured: under TCG the per-call
# path needs minutes of calls before C2 has compiled it). Prints
# "BENCH server figure value" lines; lab.sh bench-nfs-rdma makes the table. Beside the random
# reads' IOPS: the guest's CPU time per read (all CPUs, from /proc/stat) and, for rdmagate, its
# process's share of it. BENCH_JFR=1 records the gateway with JFR into /job/rdmagate.jfr. Not a test.
set -uo pipefail
. /job/lib.sh
export LAB_JVM_OPTS=                        # measures speed: the JVM as shipped, C2 included
[ -f /job/env ] && . /job/env
MIB=${BENCH_MIB:-256}
RAND_SECONDS=${BENCH_SECONDS:-20}
WARM_SECONDS=${BENCH_WARM_SECONDS:-300}
echo 1 > /proc/sys/kernel/panic_on_oops

check siw-up rdma_dummy siw || exit 1
check knfsd-start start_knfsd /srv/knfsd || exit 1

mkdir -p /srv/rdmagate /var/lib/rdmagate
cat > /tmp/rdmagate.yaml <<EOF
stateDir: /var/lib/rdmagate
http: {address: 127.0.0.1, port: 9049}
exports:
  - name: data
    path: /srv/rdmagate
    nfsPath: /data
    clients: [{match: "*", rootSquash: false}]
transports:
  nfs: {port: 2050, mountPort: 20058, rdmaPort: 20050, nlmPort: 20051, nsmPort: 20052, versions: ["3", "4.1"]}
  rpcbind: {mode: off}
  smb: {enabled: false}
EOF
[ "${BENCH_JFR:-0}" = 1 ] && export JAVA_TOOL_OPTIONS="-XX:StartFlightRecording=filename=/job/rdmagate.jfr,settings=profile"
start_rdmagate /tmp/rdmagate.yaml /var/lib/rdmagate 20050 || exit 1
unset JAVA_TOOL_OPTIONS

process_ticks() {                           # process_ticks PID: its user + system ticks
    awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null || echo 0
}

process_sys_ticks() {                       # process_sys_ticks PID: its system ticks
    awk '{ print $15 }' "/proc/$1/stat" 2>/dev/null || echo 0
}

switches() {                                # switches PID: context switches of all its threads
    cat /proc/"$1"/task/*/status 2>/dev/null | awk '/ctxt_switches/ { n += $2 } END { print n + 0 }'
}

# run_load NAME OPTS EXPORT: mount, warm up, measure, unmount
run_load() {
    local name=$1 opts=$2 export=$3 mnt=/mnt/$1 t0 t1
    mkdir -p "$mnt"
    mount -t nfs -o "$opts" "$SIW_ADDR:$export" "$mnt" || { result "$name/mount" FAIL; return 1; }
    grep -qE "$mnt nfs4? .*proto=rdma" /proc/mounts || { result "$name/mount" FAIL "not over rdma"; return 1; }
    result "$name/mount" PASS "$(grep " $mnt " /proc/mounts | cut -d' ' -f4 | tr ',' '\n' | grep -E '^(vers|proto|rsize|wsize)=' | tr '\n' ' ')"
    bench_dd "$name" "$mnt"
    local b0 b1 g0 g1 s0 s1 c0 c1 iops hz
    # warm-up of the small-call path itself, unmeasured and alike for both servers: the dd passes
    # above make a few hundred calls, and under TCG the JVM's C2 compiles a READ path only after
    # thousands more; a server is measured in its steady state
    fio --name=warm --filename="$mnt/big" --rw=randread --bs=4k --iodepth=16 --ioengine=libaio \
        --direct=1 --time_based --runtime="$WARM_SECONDS" --output-format=terse > /dev/null 2>&1
    b0=$(busy_ticks); g0=$(process_ticks "$GATEWAY"); s0=$(process_sys_ticks "$GATEWAY"); c0=$(switches "$GATEWAY")
    fio --name=rand --filename="$mnt/big" --rw=randread --bs=4k --iodepth=16 --ioengine=libaio \
        --direct=1 --time_based --runtime="$RAND_SECONDS" --ramp_time=3 --output-format=terse \
        --terse-version=3 > /tmp/fio.out 2>&1
    b1=$(busy_ticks); g1=$(process_ticks "$GATEWAY"); s1=$(process_sys_ticks "$GATEWAY"); c1=$(switches "$GATEWAY")
    # terse v3: field 8 is read IOPS
    iops=$(cut -d';' -f8 /tmp/fio.out | head -1)
    echo "BENCH $name randread-IOPS $iops"
    hz=$(getconf CLK_TCK)
    # the ramp's reads are in the ticks but not in the IOPS: the figure is a bound, alike for both
    awk -v b="$((b1 - b0))" -v hz="$hz" -v n="$iops" -v s="$RAND_SECONDS" \
        'BEGIN { if (n > 0) printf "BENCH %s randread-cpu-us-per-read %.0f\n", "'"$name"'", b / hz * 1e6 / (n * (s + 3)) }'
    [ "$name" = rdmagate ] && awk -v g="$((g1 - g0))" -v b="$((b1 - b0))" -v sy="$((s1 - s0))" \
        -v c="$((c1 - c0))" -v n="$iops" -v s="$RAND_SECONDS" \
        'BEGIN { if (b > 0 && g > 0 && n > 0) printf "BENCH rdmagate randread-gateway-cpu-share %.2f (system %.2f of it), %.1f context switches per read\n", g / b, sy / g, c / (n * (s + 3)) }'
    rm -f "$mnt/big" "$mnt/warm"
    umount "$mnt" && result "$name/unmount" PASS || result "$name/unmount" FAIL
}

rc=0
if [ "${BENCH_VERS:-3}" = 4.1 ]; then
    run_load knfsd vers=4.1,proto=rdma,port=20049 /srv/knfsd || rc=1
    run_load rdmagate vers=4.1,proto=rdma,port=20050 /data || rc=1
else
    run_load knfsd vers=3,proto=rdma,port=20049 /srv/knfsd || rc=1
    run_load rdmagate vers=3,proto=rdma,port=20050,mountport=20058,mountproto=tcp,nolock /data || rc=1
fi
kill -TERM $GATEWAY
wait $GATEWAY
echo "rdmagate exited $?"
kernel_clean || rc=1
exit $rc
