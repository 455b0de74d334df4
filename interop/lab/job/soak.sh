#!/usr/bin/env bash
# A soak of rdmagate (lab.sh soak [MINUTES] [WORKERS] [WARM]): the gateway runs IN the guest (its class
# path in /job/cp, the JDK shared at /opt/jdk) with NFS (versions 3, 4.1 and 4.2, TCP and RPC-over-RDMA)
# and SMB (TCP and SMB Direct), and the guest's kernel clients mount its one export six ways, over
# siw on rd0: nfs3-tcp, nfs3-rdma, nfs42-tcp, nfs41-rdma, cifs-tcp, cifs-rdma. WORKERS loops per
# mount (default 10: 60 clients at once) run for SOAK_MINUTES (default 30), each on a file of its
# own: write it whole with random content (O_DIRECT, so the bytes reach the gateway), read it back
# through its own mount and through the next mount in the list, another protocol or transport
# (O_DIRECT again, so the gateway answers), compare both with what was written; and every tenth
# round (SOAK_SMALL_EVERY) make, list and remove a directory of small files. Any difference or failed command is an
# error. Every SOAK_SAMPLE seconds (60) the gateway's retained heap (after a full GC, from jcmd),
# resident set, threads and descriptors are printed as SOAK lines.
#
# With HOST_WORKERS=N (lab.sh soak sets it; 0: none), the host's clients join each phase through
# qemu's forwards (host-clients.sh): N libnfs loops (NFSv3) and N smbj workers, paced by files in
# /job/host; their rounds and errors count with the guest's, and a missing host worker is an error.
#
# A warm-up of SOAK_WARM minutes (3) with the same mounts and load comes first; when its clients
# have unmounted, the gateway's retained heap, descriptors and threads are the baseline (pools at
# their working size, the JIT's code). RESULTs: soak/errors (none), soak/heap (retained heap once
# the soak's clients have unmounted within 25 % + 16 MiB of the baseline), soak/descriptors and
# soak/threads (no more than the baseline). Not run in CI: it is the
# documented long run of docs/reliability.md.
set -uo pipefail
. /job/lib.sh
[ -f /job/env ] && . /job/env
MINUTES=${SOAK_MINUTES:-30}
WORKERS=${SOAK_WORKERS:-10}
SAMPLE=${SOAK_SAMPLE:-60}
SMALL_EVERY=${SOAK_SMALL_EVERY:-10}
HOST_WORKERS=${HOST_WORKERS:-0}
echo 1 > /proc/sys/kernel/panic_on_oops

check siw-up rdma_dummy siw || exit 1
if [ "$HOST_WORKERS" -gt 0 ]; then
    check nic-up net_up || exit 1
    mkdir -p /job/host
fi
mkdir -p /srv/rdmagate /var/lib/rdmagate
cat > /tmp/rdmagate.yaml <<YAML
stateDir: /var/lib/rdmagate
http: {address: 127.0.0.1, port: 9049}
exports:
  - name: data
    path: /srv/rdmagate
    nfsPath: /data
    # secure: false: the host's clients arrive through qemu's forward, from unprivileged ports
    clients: [{match: "*", rootSquash: false, secure: false}]
shares:
  - {name: data, export: data}
transports:
  nfs: {port: 2050, mountPort: 20058, rdmaPort: 20050, nlmPort: 20051, nsmPort: 20052, versions: ["3", "4.1", "4.2"]}
  rpcbind: {mode: off}
  smb: {port: 445, directPort: 5445}
YAML
check rdmagate-user add_smb_user /tmp/rdmagate.yaml lab labpass || exit 1
start_rdmagate /tmp/rdmagate.yaml /var/lib/rdmagate 2050 || exit 1

fds() { ls /proc/"$GATEWAY"/fd 2>/dev/null | wc -l; }
# jcmd runs interpreted (-J-Xint): under TCG a JIT-compiled jcmd crashes now and then (see
# LAB_JVM_OPTS in lib.sh), and a reading it loses would look like a change.
# threads: the gateway's live Java threads (HotSpot's java.threads.live: platform threads, the
# carriers of virtual threads among them; not the JIT's compiler threads, which the VM starts and
# retires with its load); tasks: every OS thread of the process
threads() { jcmd -J-Xint "$GATEWAY" PerfCounter.print 2>/dev/null | awk -F= '$1 == "java.threads.live" { print $2 }'; }
tasks() { ls /proc/"$GATEWAY"/task 2>/dev/null | wc -l; }
# thread_names FILE: the names of the gateway's Java threads, numbers dropped, counted
thread_names() {
    jcmd -J-Xint "$GATEWAY" Thread.print 2>/dev/null | sed -n 's/^"\([^"]*\)".*/\1/p' | sed 's/[0-9][0-9]*/N/g' \
        | sort | uniq -c > "$1"
}
rss_kib() { awk '/^VmRSS/ { print $2 }' /proc/"$GATEWAY"/status 2>/dev/null || echo 0; }
heap_kib() {                                # the heap a full GC leaves: what the gateway retains
    jcmd -J-Xint "$GATEWAY" GC.run > /dev/null 2>&1
    jcmd -J-Xint "$GATEWAY" GC.heap_info 2>/dev/null | grep -o 'used [0-9]*K' | head -1 | tr -dc '0-9'
}

# metrics FILE: the gateway's /metrics, for the record (what each request was answered)
metrics() {
    exec 5<>/dev/tcp/127.0.0.1/9049 || return 1
    printf 'GET /metrics HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n' >&5
    cat <&5 > "$1"
    exec 5<&-
}

# name and mount options; the gateway is at $SIW_ADDR for every one. The Linux client keeps one
# NFSv4 client per server and minor version (server trunking), so NFSv4.1 goes over RDMA and
# NFSv4.2 over TCP to have both transports at once
MOUNTS=(
    "nfs3-tcp nfs nosharecache,vers=3,proto=tcp,port=2050,mountport=20058,mountproto=tcp,nolock $SIW_ADDR:/data"
    "nfs3-rdma nfs nosharecache,vers=3,proto=rdma,port=20050,mountport=20058,mountproto=tcp,nolock $SIW_ADDR:/data"
    "nfs42-tcp nfs nosharecache,vers=4.2,proto=tcp,port=2050 $SIW_ADDR:/data"
    "nfs41-rdma nfs nosharecache,vers=4.1,proto=rdma,port=20050 $SIW_ADDR:/data"
    "cifs-tcp cifs vers=3.1.1,username=lab,password=labpass,cache=none //$SIW_ADDR/data"
    "cifs-rdma cifs vers=3.1.1,username=lab,password=labpass,cache=none,rdma //$SIW_ADDR/data"
)
# mount_all: mounts what it can, over the transport its name says; sets names
mount_all() {
    local m name type opts source got
    names=()
    for m in "${MOUNTS[@]}"; do
        read -r name type opts source <<< "$m"
        mkdir -p "/mnt/$name"
        if ! timeout 180 mount -t "$type" -o "$opts" "$source" "/mnt/$name"; then
            result "$name/mount" FAIL
            rc=1
            continue
        fi
        got=$(grep " /mnt/$name " /proc/mounts | cut -d' ' -f4 | tr ',' '\n' | grep -E '^(vers|proto|rdma)' | tr '\n' ' ')
        if [[ $name == *-rdma ]] && ! [[ $got == *rdma* ]]; then
            result "$name/mount" FAIL "not over RDMA: $got"
            rc=1
        else
            result "$name/mount" PASS "$got"
        fi
        names+=("$name")
    done
    [ ${#names[@]} -ge 2 ] || { result soak/mounts FAIL "fewer than two mounts"; exit 1; }
    mkdir -p "/mnt/${names[0]}/soak"
}

unmount_all() {
    local name
    rm -rf "/mnt/${names[0]}/soak"
    for name in "${names[@]}"; do
        timeout 120 umount "/mnt/$name" || { result "$name/unmount" FAIL; rc=1; }
    done
}

# quiet: once the clients have gone, the gateway's descriptors and threads settle (connections
# close, NFSv4.1 clients are destroyed); waits up to a minute for two equal readings 5 s apart
quiet() {
    local f t
    for _ in $(seq 12); do
        f=$(fds); t=$(threads)
        sleep 5
        [ "$f" = "$(fds)" ] && [ "$t" = "$(threads)" ] && return 0
    done
}

rc=0
# small_files DIR ID: a directory of eight small files made, listed and removed; on a failure it
# says which step failed, shows the directory as the client and as the disk have it, and clears it,
# so that the next round starts afresh
small_files() {
    local d=$1 k n
    mkdir "$d" || { small_failed "$2" mkdir "$d"; return 1; }
    for k in 1 2 3 4 5 6 7 8; do
        echo "$2 $k" > "$d/f$k" || { small_failed "$2" "write f$k" "$d"; return 1; }
    done
    n=$(ls "$d" | wc -l)
    [ "$n" = 8 ] || { small_failed "$2" "list ($n entries)" "$d"; return 1; }
    rm -r "$d" || { small_failed "$2" remove "$d"; return 1; }
}
small_failed() {                            # small_failed ID STEP DIR
    echo "ERROR $1 $2 $3"
    echo "ERROR $1 client: $(ls -la "$3" 2>&1 | tr '\n' '|')"
    echo "ERROR $1 disk: $(ls -la "/srv/rdmagate/soak/${3##*/}" 2>&1 | tr '\n' '|')"
    rm -rf "$3"
}

# worker MOUNT_INDEX ID END: writes, reads back through two mounts, compares; prints WORKER ID ROUNDS ERRORS
worker() {
    local i=$1 id=$2 end=$3 own=/mnt/${names[$1]} other=/mnt/${names[$((($1 + 1) % ${#names[@]}))]}
    local file=soak/$id.bin rounds=0 errors=0 blocks
    local scratch=/tmp/soak-$id
    while [ "$(date +%s)" -lt "$end" ]; do
        blocks=$((1 + RANDOM % 16))        # 64 KiB to 1 MiB, in 64 KiB blocks
        head -c $((blocks * 65536)) /dev/urandom > "$scratch.w"
        if ! dd if="$scratch.w" of="$own/$file" bs=64k oflag=direct conv=fsync status=none 2> "$scratch.err"; then
            errors=$((errors + 1)); echo "ERROR $id write $own/$file: $(head -c 200 "$scratch.err")"
        fi
        for via in "$own" "$other"; do
            if ! dd if="$via/$file" of="$scratch.r" bs=64k iflag=direct status=none 2> "$scratch.err" \
                || ! cmp -s "$scratch.w" "$scratch.r"; then
                errors=$((errors + 1)); echo "ERROR $id read $via/$file: $(head -c 200 "$scratch.err")"
            fi
        done
        if [ $((rounds % SMALL_EVERY)) = 0 ] && ! small_files "$own/soak/dir-$id" "$id"; then
            errors=$((errors + 1)); echo "ERROR $id metadata $own/soak/dir-$id"
        fi
        rounds=$((rounds + 1))
    done
    rm -f "$scratch".*
    echo "WORKER $id ${names[$i]} rounds $rounds errors $errors"
}

# run_workers PHASE MINUTES: every mount's workers (and the host's) for that long, sampling the
# gateway each SAMPLE seconds; sets rounds and errors
run_workers() {
    local phase=$1 start end pids=() i w minute
    rm -f /tmp/worker-*.log
    start=$(date +%s)
    end=$((start + $2 * 60))
    [ "$HOST_WORKERS" -gt 0 ] && touch "/job/host/$phase.go"
    for i in "${!names[@]}"; do
        for w in $(seq "$WORKERS"); do
            worker "$i" "${names[$i]}-$w" "$end" > "/tmp/worker-${names[$i]}-$w.log" 2>&1 &
            pids+=($!)
        done
    done
    while [ "$(date +%s)" -lt "$end" ]; do
        sleep "$SAMPLE"
        gateway_alive_or_stop || { rc=1; break; }
        minute=$(( ($(date +%s) - start) / 60 ))
        echo "SOAK $minute $(heap_kib) $(rss_kib) $(threads) $(fds) $(tasks)"
        # the host's libnfs loops write a new file each round (nfs-cp does not overwrite): drop old ones
        [ "$HOST_WORKERS" -gt 0 ] && find "/mnt/${names[0]}/soak" -maxdepth 1 -name 'host-libnfs-*' -mmin +1 -delete
    done
    for i in "${pids[@]}"; do wait "$i"; done
    if [ "$HOST_WORKERS" -gt 0 ]; then
        touch "/job/host/$phase.stop"
        for _ in $(seq 600); do [ -e "/job/host/$phase.done" ] && break; sleep 1; done
        cp "/job/host/$phase.done" /tmp/worker-host.log 2>/dev/null \
            || echo "ERROR host clients of the $phase did not report" > /tmp/worker-host.log
    fi
    cat /tmp/worker-*.log
    rounds=$(cat /tmp/worker-*.log | awk '$1 == "WORKER" { n += $5 } END { print n + 0 }')
    errors=$(cat /tmp/worker-*.log | awk '$1 == "WORKER" { n += $7 } END { print n + 0 }')
    if [ "$HOST_WORKERS" -gt 0 ]; then       # a host worker that never reported is an error
        local reported
        reported=$(awk '$1 == "WORKER" && $2 ~ /^host-/' /tmp/worker-host.log | wc -l)
        errors=$((errors + 2 * HOST_WORKERS - reported))
    fi
}

# warm-up: the same clients and load for SOAK_WARM minutes, then everyone leaves; what the
# gateway holds then (pools grown to their working size, the JIT's code) is the baseline
WARM=${SOAK_WARM:-3}
mount_all
echo "SOAK warm-up of $WARM min: minute heap-KiB rss-KiB threads fds tasks"
run_workers warm "$WARM"
warm_rounds=$rounds
warm_errors=$errors
unmount_all
quiet
base_heap=$(heap_kib); base_fds=$(fds); base_threads=$(threads)
ls -l /proc/"$GATEWAY"/fd > /job/fds-baseline.txt 2>&1
thread_names /job/threads-baseline.txt
metrics /job/metrics-baseline.txt
echo "SOAK baseline heap-KiB $base_heap threads $base_threads fds $base_fds"

mount_all
echo "SOAK $MINUTES min, $((WORKERS * ${#names[@]})) workers on ${names[*]} and $((2 * HOST_WORKERS)) on the host: minute heap-KiB rss-KiB threads fds tasks"
run_workers soak "$MINUTES"
echo "SOAK rounds $rounds errors $errors (warm-up: rounds $warm_rounds errors $warm_errors)"
if [ "$((errors + warm_errors))" = 0 ] && [ "$rounds" -gt 0 ]; then
    result soak/errors PASS "$rounds rounds, each a write and two verified reads, over $MINUTES min (and $warm_rounds in the warm-up)"
else
    result soak/errors FAIL "$errors errors in $rounds rounds, $warm_errors in the $warm_rounds of the warm-up"; rc=1
fi
unmount_all
quiet
end_heap=$(heap_kib); end_fds=$(fds); end_threads=$(threads)
ls -l /proc/"$GATEWAY"/fd > /job/fds-end.txt 2>&1
thread_names /job/threads-end.txt
metrics /job/metrics-end.txt
grep -E '^rdmagate_(smb|nfs)_requests_total' /job/metrics-end.txt | grep -vE 'status="(OK|STATUS_SUCCESS|NFS4_OK|NFS3_OK)"' \
    | sed 's/^/SOAK status /' | head -40
echo "SOAK end heap-KiB $end_heap threads $end_threads fds $end_fds"
if [ "${end_heap:-0}" -gt 0 ] && [ "$end_heap" -le $((base_heap * 5 / 4 + 16384)) ]; then
    result soak/heap PASS "retained heap $base_heap KiB after the warm-up, $end_heap KiB after the soak"
else
    result soak/heap FAIL "retained heap $base_heap KiB after the warm-up, $end_heap KiB after the soak"; rc=1
fi
[ "$end_fds" -le "$base_fds" ] && result soak/descriptors PASS "$base_fds after the warm-up, $end_fds after the soak" \
    || { result soak/descriptors FAIL "$base_fds after the warm-up, $end_fds after the soak"; rc=1; }
[ "$end_threads" -le "$base_threads" ] && result soak/threads PASS "$base_threads after the warm-up, $end_threads after the soak" \
    || { result soak/threads FAIL "$base_threads after the warm-up, $end_threads after the soak"; rc=1
         diff /job/threads-baseline.txt /job/threads-end.txt | sed 's/^/SOAK thread names /'; }
kill -TERM $GATEWAY
wait $GATEWAY
echo "rdmagate exited $?"
kernel_clean || rc=1
exit $rc
