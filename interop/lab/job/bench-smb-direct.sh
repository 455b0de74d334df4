#!/usr/bin/env bash
# rdmagate against the guest's own ksmbd, both over SMB Direct on the same siw link, through the
# same kernel cifs client: ksmbd first (then shut down: both take 445 and 5445, the ports Linux
# dials), then rdmagate running IN the guest (its class path in /job/cp, the JDK shared at
# /opt/jdk) over SMB Direct and over TCP. Each mount (vers=3.1.1, cache=none, unsigned so cifs
# offloads I/O of 4 KiB and more to the RDMA channel) runs the same load: dd of BENCH_MIB MiB
# written and read back with O_DIRECT 1 MiB requests, then fio 4 KiB random reads at queue depth
# 16 for BENCH_SECONDS after BENCH_WARM_SECONDS of warm-up (the JIT under TCG). Prints
# "BENCH server figure value" lines; lab.sh bench-smb-direct makes the table. Not a test.
set -uo pipefail
. /job/lib.sh
export LAB_JVM_OPTS=                        # measures speed: the JVM as shipped, C2 included
[ -f /job/env ] && . /job/env
MIB=${BENCH_MIB:-256}
RAND_SECONDS=${BENCH_SECONDS:-20}
WARM_SECONDS=${BENCH_WARM_SECONDS:-300}
echo 1 > /proc/sys/kernel/panic_on_oops

check siw-up rdma_dummy siw || exit 1

# run_load NAME //SERVER/SHARE OPTS: mount, warm up, measure, unmount
run_load() {
    local name=$1 unc=$2 opts=$3 mnt=/mnt/$1 t0 t1 b0 b1 iops hz
    mkdir -p "$mnt"
    timeout 180 mount -t cifs -o "$opts" "$unc" "$mnt" || { result "$name/mount" FAIL; return 1; }
    result "$name/mount" PASS "$(grep " $mnt " /proc/mounts | cut -d' ' -f4 | tr ',' '\n' \
        | grep -E '^(vers|rdma|rsize|wsize|cache)' | tr '\n' ' ')"
    bench_dd "$name" "$mnt"
    fio --name=warm --filename="$mnt/big" --rw=randread --bs=4k --iodepth=16 --ioengine=libaio \
        --direct=1 --time_based --runtime="$WARM_SECONDS" --output-format=terse > /dev/null 2>&1
    b0=$(busy_ticks)
    fio --name=rand --filename="$mnt/big" --rw=randread --bs=4k --iodepth=16 --ioengine=libaio \
        --direct=1 --time_based --runtime="$RAND_SECONDS" --ramp_time=3 --output-format=terse \
        --terse-version=3 > /tmp/fio.out 2>&1
    b1=$(busy_ticks)
    iops=$(cut -d';' -f8 /tmp/fio.out | head -1)
    echo "BENCH $name randread-IOPS $iops"
    hz=$(getconf CLK_TCK)
    awk -v b="$((b1 - b0))" -v hz="$hz" -v n="$iops" -v s="$RAND_SECONDS" \
        'BEGIN { if (n > 0) printf "BENCH %s randread-cpu-us-per-read %.0f\n", "'"$name"'", b / hz * 1e6 / (n * (s + 3)) }'
    rm -f "$mnt/big" "$mnt/warm"
    timeout 120 umount "$mnt" && result "$name/unmount" PASS || result "$name/unmount" FAIL
}

rc=0
common=vers=3.1.1,username=lab,password=labpass,cache=none
check ksmbd-start start_ksmbd /srv/smb || exit 1
run_load ksmbd "//$SIW_ADDR/share" "$common,rdma" || rc=1
check ksmbd-stop bash -c "ksmbd.control -s && sleep 2 && rmmod ksmbd" || rc=1

mkdir -p /srv/rdmagate /var/lib/rdmagate
cat > /tmp/rdmagate.yaml <<YAML
stateDir: /var/lib/rdmagate
http: {address: 127.0.0.1, port: 9049}
exports:
  - name: data
    path: /srv/rdmagate
    clients: [{match: "*", rootSquash: false}]
shares:
  - {name: data, export: data}
transports:
  nfs: {enabled: false}
  smb: {port: 445, directPort: 5445}
YAML
check rdmagate-user add_smb_user /tmp/rdmagate.yaml lab labpass || rc=1
start_rdmagate /tmp/rdmagate.yaml /var/lib/rdmagate 445 || exit 1
run_load rdmagate "//$SIW_ADDR/data" "$common,rdma" || rc=1
run_load rdmagate-tcp "//$SIW_ADDR/data" "$common" || rc=1
kill -TERM $GATEWAY
wait $GATEWAY
echo "rdmagate exited $?"
kernel_clean || rc=1
exit $rc
