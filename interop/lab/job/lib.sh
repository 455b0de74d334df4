# Helpers for job scripts that run inside the interop guest (sourced: . /job/lib.sh).
# The lab copies this file, and workloads/, into every job directory; they are not part
# of the image, so changing them rebuilds nothing.
#
# Every check reports one line:  RESULT <name> PASS|FAIL [detail] [at <seconds into the job>s]
# The JUnit tests assert on these lines; lab_summary prints the totals and returns 1 if
# anything failed.

LAB_PASS=0
LAB_FAIL=0

result() {                                  # result NAME PASS|FAIL [detail...]
    local name=$1 verdict=$2
    shift 2
    echo "RESULT $name $verdict $* [at ${SECONDS}s]"
    if [ "$verdict" = PASS ]; then LAB_PASS=$((LAB_PASS + 1)); else LAB_FAIL=$((LAB_FAIL + 1)); fi
}

check() {                                   # check NAME COMMAND...: PASS if it exits 0
    local name=$1
    shift
    local out
    if out=$("$@" 2>&1); then
        result "$name" PASS
    else
        result "$name" FAIL "($*): $(echo "$out" | tail -3 | tr '\n' ' ')"
        gateway_alive_or_stop
        return 1
    fi
}

# When a gateway started in the guest (start_rdmagate) has died, reports gateway-alive FAIL with the
# JVM's crash report's problematic frame and ends the job, instead of letting every later step
# wait out its timeout against a server that is gone.
gateway_alive_or_stop() {
    [ -n "${GATEWAY:-}" ] || return 0
    kill -0 "$GATEWAY" 2>/dev/null && return 0
    local crash frame=""
    crash=$(ls /job/hs_err_pid*.log 2>/dev/null | head -1)
    [ -n "$crash" ] && frame=": $(grep -m1 -A1 'Problematic frame' "$crash" | tail -1)"
    result gateway-alive FAIL "the gateway's JVM is gone${frame}"
    kernel_clean || true
    exit 3
}

kernel_clean() {                            # reports kernel-clean (no oops in dmesg), keeps dmesg.log
    local rc=0
    if dmesg | grep -qE 'BUG:|Oops|general protection'; then
        result kernel-clean FAIL "$(dmesg | grep -E -A3 'BUG:|Oops' | head -8 | tr '\n' ' ')"
        rc=1
    else
        result kernel-clean PASS "no oops"
    fi
    dmesg > /job/dmesg.log
    return $rc
}

lab_summary() {
    echo "SUMMARY pass=$LAB_PASS fail=$LAB_FAIL"
    [ "$LAB_FAIL" = 0 ]
}

# The guest's NIC (virtio-net), present only when the lab forwards ports. Configures the
# slirp addresses: the guest is 10.0.2.15; 10.0.2.100:PORT are the host's forwarded ports.
# neighbour ADDR PORT: a TCP connect to ADDR:PORT before the first RDMA connect to ADDR, so that
# its link-layer address is known: rdma_resolve_addr gives cifs 5 s, which a first ARP exchange
# through the emulated network has been seen to exceed (mount error(2), "completed -110")
neighbour() {
    timeout 30 bash -c "exec 3<>/dev/tcp/$1/$2" 2>/dev/null || true
}

net_up() {
    local dev
    for dev in /sys/class/net/*; do
        if [ "$(basename "$(readlink -f "$dev/device/driver" 2>/dev/null)")" = virtio_net ]; then
            NIC=$(basename "$dev")
            ip addr add 10.0.2.15/24 dev "$NIC"
            ip link set "$NIC" up
            ip route add default via 10.0.2.2
            return 0
        fi
    done
    echo "net_up: no virtio-net interface" >&2
    return 1
}

# A soft RDMA device on its own dummy netdev with a /32 address (rdma_cm cannot use
# 127.0.0.1). siw: siw0 on rd0 = 10.200.0.2; rxe: rxe0 on rd1 = 10.200.1.2.
SIW_ADDR=10.200.0.2
RXE_ADDR=10.200.1.2
rdma_dummy() {                              # rdma_dummy siw|rxe
    local kind=$1 dev addr mod
    case $kind in
        siw) dev=rd0 addr=$SIW_ADDR mod=siw ;;
        rxe) dev=rd1 addr=$RXE_ADDR mod=rdma_rxe ;;
        *) echo "rdma_dummy: siw or rxe" >&2; return 2 ;;
    esac
    modprobe dummy && modprobe rdma_ucm && modprobe rdma_cm && modprobe "$mod" || return 1
    ip link add "$dev" type dummy || return 1
    ip addr add "$addr/32" dev "$dev" || return 1
    ip link set "$dev" up || return 1
    rdma link add "${kind}0" type "$kind" netdev "$dev" || return 1
    # the device is usable once its port is ACTIVE
    local i
    for i in $(seq 50); do
        rdma link show "${kind}0/1" 2>/dev/null | grep -q 'state ACTIVE' && return 0
        sleep 0.1
    done
    rdma link show >&2
    return 1
}

rping_check() {                             # rping_check ADDR: 10 pings through rdma_cm
    local addr=$1 srv rc
    rping -s -a "$addr" -C 10 >/tmp/rping-server.log 2>&1 &
    srv=$!
    sleep 1
    timeout 60 rping -c -a "$addr" -C 10 -S 64 -v >/tmp/rping-client.log 2>&1
    rc=$?
    wait "$srv" || rc=$((rc == 0 ? 1 : rc))
    [ "$rc" = 0 ] && [ "$(grep -c 'ping data' /tmp/rping-client.log)" -ge 10 ] \
        || { cat /tmp/rping-server.log /tmp/rping-client.log; return 1; }
}

# knfsd exporting DIR over TCP 2049 and RDMA 20049 (NFSv3, v4.1, v4.2), with rpcbind,
# mountd and statd (NLM locks for v3). The grace periods (90 s by default, during which
# knfsd refuses new NLM and NFSv4 locks) are cut to 10 s: a fresh guest has no clients
# to wait for.
start_knfsd() {                             # start_knfsd DIR
    local dir=$1
    mkdir -p "$dir" /var/lib/nfs/v4recovery /run/rpc_pipefs
    chmod 0777 "$dir"
    echo "$dir *(rw,no_root_squash,insecure,no_subtree_check,sync,fsid=1)" > /etc/exports
    modprobe sunrpc && modprobe nfsd && modprobe rpcrdma || return 1
    mountpoint -q /proc/fs/nfsd || mount -t nfsd nfsd /proc/fs/nfsd || return 1
    mountpoint -q /run/rpc_pipefs || mount -t rpc_pipefs sunrpc /run/rpc_pipefs || return 1
    modprobe lockd && echo 10 > /proc/sys/fs/nfs/nlm_grace_period || return 1
    echo 10 > /proc/fs/nfsd/nfsv4gracetime || return 1
    rpcbind -w || return 1
    rpc.statd --no-notify || return 1
    exportfs -ra || return 1
    rpc.mountd --port 20048 || return 1
    rpc.nfsd --port 2049 4 || return 1
    echo 'rdma 20049' > /proc/fs/nfsd/portlist || return 1
    grep -q rdma /proc/fs/nfsd/portlist
}

# ksmbd sharing DIR as "share" to user lab (password labpass), over TCP 445 and SMB Direct.
start_ksmbd() {                             # start_ksmbd DIR
    local dir=$1
    mkdir -p "$dir" /etc/ksmbd
    chmod 0777 "$dir"
    id lab >/dev/null 2>&1 || useradd -M -u 1000 lab || return 1
    cat > /etc/ksmbd/ksmbd.conf <<EOF
[global]
	netbios name = RDMAGATE-GUEST
	server min protocol = SMB3_11
[share]
	path = $dir
	read only = no
	force user = root
	force group = root
EOF
    rm -f /etc/ksmbd/ksmbdpwd.db
    ksmbd.adduser -a lab -p labpass >/dev/null || return 1
    modprobe ksmbd || return 1
    ksmbd.mountd || return 1
    local i
    for i in $(seq 50); do
        [ -e /sys/class/ksmbd-control/kill_server ] && grep -q . /sys/class/ksmbd-control/debug 2>/dev/null && break
        sleep 0.1
    done
    sleep 1
}

# The bytes answered on GET URL_PATH from 10.0.2.100:PORT (a forwarded host port).
host_get() {                                # host_get PORT PATH
    curl -sS --max-time 30 -o - -w '\nHTTP %{http_code}\n' "http://10.0.2.100:$1$2"
}

# The guest's JVMs run C1-compiled code only (LAB_JVM_OPTS, default -XX:TieredStopAtLevel=1).
# Every crash of the gateway's JVM seen under qemu's TCG (SIGSEGV at a bogus address) was at the
# verified entry of a C1 method (offset +0x20) that the VM was patching with a jump while another
# vCPU entered it: tiered compilation makes each warm C1 method not entrant when its C2 version
# arrives, and TCG does not keep that cross-modified code coherent between vCPUs. Without C2 no C1
# method is replaced. A job that measures speed sets LAB_JVM_OPTS= to run the JVM as shipped.
lab_jvm_opts() {
    echo "${LAB_JVM_OPTS--XX:TieredStopAtLevel=1}"
}

# Runs rdmagate in the guest: its class path from the lab (/job/cp/classpath, else the jars in
# /job/cp), the JDK shared at /opt/jdk, in network namespace NETNS when one is given, until
# ADDR:PORT (default 127.0.0.1) accepts. Sets GATEWAY (pid) and GATEWAY_LOG; reports rdmagate-start.
# The JVM under TCG now and then dies of an emulation fault at start (see lab_jvm_opts; never
# seen on hardware): up to three attempts, each with an empty STATE_DIR.
# start_rdmagate CONFIG STATE_DIR PORT [NETNS [ADDR]]: the state dir starts empty, unless KEEP_STATE=1
start_rdmagate() {
    local config=$1 state=$2 port=$3 ns=${4:-} addr=${5:-127.0.0.1} attempt cp in=()
    cp=$(cat /job/cp/classpath 2>/dev/null || echo '/job/cp/*')
    [ -n "$ns" ] && in=(ip netns exec "$ns")
    for attempt in 1 2 3; do
        [ "${KEEP_STATE:-}" = 1 ] || rm -rf "${state:?}"/*
        GATEWAY_LOG=/job/rdmagate-$attempt.log
        "${in[@]}" java $(lab_jvm_opts) --enable-native-access=ALL-UNNAMED -cp "$cp" io.rdmagate.gateway.Main serve \
            --config "$config" > "$GATEWAY_LOG" 2>&1 &
        GATEWAY=$!
        for _ in $(seq 600); do
            if "${in[@]}" bash -c "exec 3<>/dev/tcp/$addr/$port" 2>/dev/null; then
                result rdmagate-start PASS "attempt $attempt"
                return 0
            fi
            kill -0 $GATEWAY 2>/dev/null || break
            sleep 0.5
        done
        kill $GATEWAY 2>/dev/null
        wait $GATEWAY 2>/dev/null
    done
    result rdmagate-start FAIL "$(tail -5 "$GATEWAY_LOG" | tr '\n' ' ')"
    return 1
}

# rdma_devices_check: `rdmagate rdma devices` (libibverbs through java.lang.foreign) says of every
# device in /sys/class/infiniband what `ibv_devinfo -v` and sysfs say: transport, node GUID, limits,
# port state, MTU, link layer, the first GID, and for RoCE the GIDs' network device and IPv4 address;
# and each device takes a registration of one pool slab (4 MiB) through ibv_reg_mr.
rdma_devices_check() {
    local cp out dev info block want ndev roce= missing=() n=0
    cp=$(cat /job/cp/classpath 2>/dev/null || echo '/job/cp/*')
    out=$(java $(lab_jvm_opts) --enable-native-access=ALL-UNNAMED -cp "$cp" io.rdmagate.gateway.Main rdma devices 2>&1)
    local rc=$?
    echo "$out" > /job/rdma-devices.out
    [ $rc = 0 ] || { echo "exit $rc: $out"; return 1; }
    for dev in $(ls /sys/class/infiniband); do
        n=$((n + 1))
        info=$(ibv_devinfo -v -d "$dev")
        block=$(echo "$out" | awk -v d="$dev" '$0 ~ "^"d": transport " { p = 1; print; next } /^[^ ]/ { p = 0 } p')
        dv() { echo "$info" | awk -F':[ \t]+' -v k="$1" '$1 ~ "^[ \t]*"k"$" { split($2, w, " "); print w[1]; exit }'; }
        for want in "$dev: transport $(dv transport)," "node_guid $(dv node_guid)" "max_mr_size $(dv max_mr_size)," \
                "max_qp_wr $(dv max_qp_wr)," "max_sge $(dv max_sge)," "state $(dv state)," "active_mtu $(dv active_mtu)," \
                "link_layer $(dv link_layer)," "GID[0] $(cat /sys/class/infiniband/$dev/ports/1/gids/0)" \
                "registration of 4 MiB (local write, remote read and write): ok, lkey"; do
            [[ $block == *"$want"* ]] || missing+=("$dev: '$want'")
        done
        # RoCE: the GID's network device and its IPv4 addresses (iWARP keeps no GID attributes: EINVAL)
        ndev=$(cat "/sys/class/infiniband/$dev/ports/1/gid_attrs/ndevs/0" 2>/dev/null)
        if [ -n "$ndev" ]; then
            [[ $block == *"GID[0] "*", $ndev"* ]] || missing+=("$dev: GID[0] on '$ndev'")
            for addr in $(ip -4 -o addr show dev "$ndev" | awk '{ split($4, a, "/"); print a[1] }'); do
                [[ $block == *", $addr"* ]] || missing+=("$dev: a GID of $addr")
                roce="$roce $dev:$ndev:$addr"
            done
        fi
    done
    [ "$n" -gt 0 ] || { echo "no device in /sys/class/infiniband"; return 1; }
    [ ${#missing[@]} = 0 ] || { echo "differs from ibv_devinfo/sysfs: ${missing[*]}"; return 1; }
    echo "$n devices as ibv_devinfo and sysfs have them, each registering 4 MiB: $(ls /sys/class/infiniband | tr '\n' ' ')(RoCE GIDs:$roce)"
}

add_smb_user() {                            # add_smb_user CONFIG NAME PASSWORD: an SMB user acting as root
    local attempt cp
    cp=$(cat /job/cp/classpath 2>/dev/null || echo '/job/cp/*')
    for attempt in 1 2 3; do                # the JVM under TCG now and then dies at start: three tries
        echo "$3" | java $(lab_jvm_opts) -cp "$cp" io.rdmagate.gateway.Main user add "$2" --uid 0 --gid 0 \
            --config "$1" --password-stdin && return 0
    done
    return 1
}

# fcntl(F_SETLK, F_WRLCK) on the whole file, as fs-workload.sh takes it: perl -e "$SETLK" FILE [MARK SECONDS]
SETLK='use Fcntl; open(my $fh, "+<", $ARGV[0]) or die "open: $!";
    my $lk = pack("s s x4 q q i x4", F_WRLCK, 0, 0, 0, 0); fcntl($fh, F_SETLK, $lk) or exit 1;
    if (@ARGV > 1) { open(my $o, ">", $ARGV[1]) or die; close $o; sleep $ARGV[2]; } exit 0;'

# try_lock flock|fcntl FILE: takes and drops the lock, failing if it is held elsewhere
try_lock() {
    if [ "$1" = flock ]; then flock -n "$2" true; else perl -e "$SETLK" "$2"; fi
}

# hold_lock flock|fcntl FILE: holds the lock in the background until release_lock; returns 0
# once the holder has it (it marks /tmp/lock-held), 1 if it could not take it
hold_lock() {
    rm -f /tmp/lock-held
    if [ "$1" = flock ]; then
        # -o: the flock process keeps the only descriptor; its child marks and waits
        flock -n -o "$2" sh -c 'touch /tmp/lock-held; exec sleep 300' &
    else
        perl -e "$SETLK" "$2" /tmp/lock-held 300 &
    fi
    HOLDER=$!
    local i
    for i in $(seq 300); do
        [ -e /tmp/lock-held ] && return 0
        kill -0 $HOLDER 2>/dev/null || return 1
        sleep 0.1
    done
    return 1
}

release_lock() {
    pkill -P "$HOLDER" sleep 2>/dev/null
    kill "$HOLDER" 2>/dev/null
    wait "$HOLDER" 2>/dev/null
}

# What the bench-* jobs share (MIB set by the job).
mbps() {                                    # mbps T0 T1: MB/s for MIB MiB between them
    awk -v m="$MIB" -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", m * 1.048576 / (b - a) }'
}

busy_ticks() {                              # CPU ticks spent on anything but idle and iowait, all CPUs
    awk '$1 == "cpu" { print $2 + $3 + $4 + $7 + $8 }' /proc/stat
}

# bench_dd NAME MNT: BENCH_SEQ_WARM_MIB (64) MiB each way to warm up, then MIB MiB written
# (O_DIRECT, fsync) and read back through a cold cache, 1 MiB requests; prints BENCH NAME
# write-MBps/read-MBps, and PHASE NAME what START END (epoch seconds, to slice a profile), checks the data
bench_dd() {
    local name=$1 mnt=$2 t0 t1
    t0=$(date +%s.%N)
    dd if=/dev/zero of="$mnt/warm" bs=1M count="${BENCH_SEQ_WARM_MIB:-64}" oflag=direct status=none
    dd if="$mnt/warm" of=/dev/null bs=1M iflag=direct status=none
    echo "PHASE $name warm $t0 $(date +%s.%N)"
    dd if=/dev/urandom of=/tmp/src bs=1M count="$MIB" status=none
    t0=$(date +%s.%N)
    dd if=/tmp/src of="$mnt/big" bs=1M oflag=direct conv=fsync status=none
    t1=$(date +%s.%N)
    echo "BENCH $name write-MBps $(mbps "$t0" "$t1")"
    echo "PHASE $name write $t0 $t1"
    sync; echo 3 > /proc/sys/vm/drop_caches
    t0=$(date +%s.%N)
    dd if="$mnt/big" of=/tmp/back bs=1M iflag=direct status=none
    t1=$(date +%s.%N)
    echo "BENCH $name read-MBps $(mbps "$t0" "$t1")"
    echo "PHASE $name read $t0 $t1"
    cmp -s /tmp/src /tmp/back && result "$name/data" PASS || result "$name/data" FAIL "read back differs"
    rm -f /tmp/back
}
