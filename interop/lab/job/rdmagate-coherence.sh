#!/usr/bin/env bash
# One file, two protocols, one gateway: rdmagate on the host serves the same export to the
# guest's kernel cifs client (SMB 3.1.1, leases) and kernel NFSv3 client (over TCP, then over
# RDMA with siw through the forward). Each side must see the other's writes while it holds the
# file open, and a lock one side holds must be refused to the other, both ways (NLM on the NFS
# side, found through rdmagate's embedded rpcbind as in rdmagate-nfs.sh). cifs also sees a write
# a process on the host makes while it holds the file open. Ports from /job/env.
set -uo pipefail
. /job/lib.sh
. /job/workloads/nfs42-features.sh
[ -f /job/env ] && . /job/env
echo 1 > /proc/sys/kernel/panic_on_oops
rc=0

if net_up; then result nic-up PASS "$NIC"; else result nic-up FAIL; lab_summary; exit 1; fi
check statd bash -c "rpcbind -w && rpc.statd --no-notify" || rc=1
check siw-nic bash -c "modprobe siw && rdma link add siw0 type siw netdev $NIC" || rc=1
S=/mnt/smb N=/mnt/nfs
mkdir -p $S $N
check cifs-mount timeout 120 mount -t cifs -o "vers=3.1.1,port=$SMB_PORT,username=$SMB_USER,password=$SMB_PASSWORD" \
    //10.0.2.100/data $S || { lab_summary; exit 1; }

# refused LABEL KIND HOLDER OTHER: a KIND lock (fcntl or flock) on a file, held through the mount of
# protocol HOLDER (nfs or cifs), is refused through the mount of OTHER, and free to it once released.
# cifs may keep its locks locally under a write lease: an NLM request recalls the lease first.
refused() {
    local label=$1 kind=$2 holder=$3 other=$4 f
    local h=$N o=$S
    [ $holder = cifs ] && h=$S o=$N
    f=$label-$kind-$holder-holds
    echo x > $h/$f
    cat $o/$f > /dev/null
    if ! hold_lock $kind $h/$f; then result "$label/$kind-$holder-lock-refused-to-$other" FAIL "the $holder lock was never held"
    elif try_lock $kind $o/$f; then
        result "$label/$kind-$holder-lock-refused-to-$other" FAIL "$other got the lock $holder holds; cifs $(grep -i lock /proc/fs/cifs/Stats | tr '\n' ' ')$(gateway_view)"
    else result "$label/$kind-$holder-lock-refused-to-$other" PASS; fi
    release_lock
    if try_lock $kind $o/$f; then result "$label/$kind-$holder-unlock-frees-$other" PASS
    else result "$label/$kind-$holder-unlock-frees-$other" FAIL "$other still refused after the $holder unlock"; fi
}

# what the gateway counted of locks and recalls, for a failure's detail (its /metrics, one line)
gateway_view() {
    host_get "$HTTP_PORT" /metrics | grep -E '^rdmagate_(smb_requests_total\{command="(LOCK|OPLOCK_BREAK)"|nfs_requests_total\{procedure="(LOCK|TEST)",program="nlm"|smb_breaks_sent_total|state_(recall|foreign))' \
        | sed 's/rdmagate_//' | tr '\n' ' '
}

coherence() {                               # coherence LABEL NFS_MOUNT_OPTIONS
    local label=$1 opts=$2 f got out
    if ! out=$(timeout 180 mount -t nfs -o "$opts" 10.0.2.100:/data $N 2>&1); then
        result "$label/nfs-mount" FAIL "$out"
        return 1
    fi
    result "$label/nfs-mount" PASS "$(grep " $N nfs " /proc/mounts | cut -d' ' -f4 | tr ',' '\n' | grep -E '^(vers|proto)=' | tr '\n' ' ')"

    # cifs holds the file open and has read it (cached under its lease); NFS rewrites it
    f=$label-nfs-writes.txt
    echo old-content > $S/$f
    exec 3<$S/$f
    cat $S/$f > /dev/null
    echo new-content-from-nfs > $N/$f
    got=$(cat $S/$f)
    exec 3<&-
    if [ "$got" = new-content-from-nfs ]; then result "$label/cifs-sees-nfs-write" PASS
    else result "$label/cifs-sees-nfs-write" FAIL "cifs read '$got' after the NFS write"; fi

    # NFS has read the file; cifs appends while holding it open (dirty under a write lease)
    f=$label-cifs-writes.txt
    echo first > $S/$f
    cat $N/$f > /dev/null
    exec 4>>$S/$f
    echo second-from-cifs >&4
    got=$(cat $N/$f | tr '\n' ' ')
    exec 4>&-
    if [ "$got" = "first second-from-cifs " ]; then result "$label/nfs-sees-cifs-write" PASS
    else result "$label/nfs-sees-cifs-write" FAIL "NFS read '$got' while cifs held the file open"; fi

    # a process on the host holds an fcntl lock on host-locked.dat for the whole job
    if try_lock fcntl $N/host-locked.dat; then result "$label/host-lock-refused-to-nfs" FAIL "NFS got the lock a host process holds"
    else result "$label/host-lock-refused-to-nfs" PASS; fi

    for kind in fcntl flock; do
        refused $label $kind nfs cifs
        refused $label $kind cifs nfs
    done

    if timeout 60 umount $N; then result "$label/nfs-unmount" PASS; else result "$label/nfs-unmount" FAIL; fi
}

# cifs holds host-written.txt open with its content cached; a process on the host (the test, not
# the gateway) rewrites it once host-write.go appears and then creates host-write.done. The lease
# break the gateway sends on the host's write must reach cifs, so its next read is the new content.
host_write() {
    local f=host-written.txt got i t0
    echo old-content > $S/$f
    exec 5<$S/$f
    cat $S/$f > /dev/null
    touch $S/host-write.go
    for i in $(seq 300); do [ -e $S/host-write.done ] && break; sleep 0.1; done
    if [ ! -e $S/host-write.done ]; then
        exec 5<&-
        result cifs-sees-host-write FAIL "the host never answered host-write.go"
        return
    fi
    t0=$(date +%s%N)
    for i in $(seq 100); do
        got=$(cat $S/$f)
        [ "$got" = new-content-from-host ] && break
        sleep 0.1
    done
    exec 5<&-
    if [ "$got" = new-content-from-host ]; then
        result cifs-sees-host-write PASS "new content after $(( ($(date +%s%N) - t0) / 1000000 )) ms"
    else result cifs-sees-host-write FAIL "cifs still read '$got' 10 s after the host's write; $(gateway_view)"; fi
}
host_write

# NFSv4.2 on the same gateway (transports.nfs.versions [3, 4.1, 4.2]), no MOUNT and no rpcbind: the
# kernel client mounts the pseudo-filesystem's /data, lists what cifs lists, reads a file cifs wrote
# byte for byte, and after cifs appends to a file and closes it, opens and reads the new content;
# then NFSv4.2's own: sparse files, server-side copy, user xattrs (workloads/nfs42-features.sh).
nfs4() {                                    # nfs4 LABEL NFS_MOUNT_OPTIONS
    local label=$1 opts=$2 V=/mnt/v41 out want got
    mkdir -p $V
    if ! out=$(timeout 180 mount -t nfs -o "$opts" 10.0.2.100:/data $V 2>&1); then
        result "$label/mount" FAIL "$out"
        return 1
    fi
    out=$(grep " $V nfs4 " /proc/mounts | cut -d' ' -f4 | tr ',' '\n' | grep -E '^(vers|proto)=' | tr '\n' ' ')
    if [[ $out == *vers=4.2* ]]; then result "$label/mount" PASS "$out"
    else result "$label/mount" FAIL "mounted as '$out'"; fi
    # the kernel client asks for a back channel at CREATE_SESSION: granted, and its CB_NULL probe answered
    local up=""
    for i in $(seq 50); do
        up=$(host_get "$HTTP_PORT" /metrics | grep -E '^rdmagate_nfs4_back_channels\{' | tr '\n' ' ')
        [[ $up == *'state="up"} 1'* && $up == *'state="down"} 0'* ]] && break
        sleep 0.2
    done
    if [[ $up == *'state="up"} 1'* && $up == *'state="down"} 0'* ]]; then result "$label/back-channel" PASS "$up"
    else result "$label/back-channel" FAIL "metrics: '$up'; $(grep -si callback "${GATEWAY_LOG:-/dev/null}" | tail -3 | tr '\n' ' ')"; fi
    want=$(ls -1 $S | sort | tr '\n' ' ')
    got=$(ls -1 $V | sort | tr '\n' ' ')
    if [ "$want" = "$got" ]; then result "$label/list" PASS
    else result "$label/list" FAIL "NFSv4.1 lists '$got', cifs '$want'"; fi
    if cmp -s $S/v41-data.bin $V/v41-data.bin && [ "$(stat -c %s $V/v41-data.bin)" = "$(stat -c %s $S/v41-data.bin)" ]; then
        result "$label/read" PASS "$(stat -c %s $V/v41-data.bin) bytes"
    else result "$label/read" FAIL "$(cmp $S/v41-data.bin $V/v41-data.bin 2>&1)"; fi
    delegation_recalled "$label" $V
    echo "appended-by-cifs-$label" >> $S/v41-grows.txt
    got=$(tail -n 1 $V/v41-grows.txt)
    if [ "$got" = "appended-by-cifs-$label" ]; then result "$label/sees-cifs-write" PASS
    else result "$label/sees-cifs-write" FAIL "read '$got'"; fi
    # writes: a file copied in over NFSv4.1 reads back through cifs; a tree made, renamed and removed
    head -c 5000000 /dev/urandom > /tmp/v41-src.bin
    if cp /tmp/v41-src.bin $V/v41-written-$label.bin && sync && cmp -s /tmp/v41-src.bin $S/v41-written-$label.bin; then
        result "$label/write" PASS
    else result "$label/write" FAIL "$(cmp /tmp/v41-src.bin $S/v41-written-$label.bin 2>&1)"; fi
    namespace_steps() {
        local step
        step="mkdir -p" && mkdir -p $V/t-$label/a/b 2>&1 \
        && step="create" && echo leaf > $V/t-$label/a/b/leaf \
        && step="symlink" && ln -s a/b/leaf $V/t-$label/link 2>&1 \
        && step="rename" && mv $V/t-$label/a $V/t-$label/moved 2>&1 \
        && step="readlink" && [ "$(readlink $V/t-$label/link)" = a/b/leaf ] \
        && step="cifs reads the moved file" && [ "$(cat $S/t-$label/moved/b/leaf)" = leaf ] \
        && step="chmod" && chmod 640 $V/t-$label/moved/b/leaf 2>&1 \
        && step="mode after chmod" && [ "$(stat -c %a $V/t-$label/moved/b/leaf)" = 640 ] \
        && step="truncate" && truncate -s 2 $V/t-$label/moved/b/leaf 2>&1 \
        && step="size after truncate" && [ "$(stat -c %s $V/t-$label/moved/b/leaf)" = 2 ] \
        && step="rm -r" && rm -r $V/t-$label 2>&1 \
        && step="gone from the cifs listing" && ! ls -1 $S | grep -qx "t-$label" \
        || { echo "at '$step'"; return 1; }
    }
    if out=$(namespace_steps); then result "$label/namespace" PASS
    else result "$label/namespace" FAIL "$out; $(ls -lR $V/t-$label 2>&1 | head -12 | tr '\n' ' ')"; fi
    # locks: an NFSv4.1 lock (LOCK) is refused through cifs, and a cifs lock to NFSv4.1, both ways
    N=$V refused $label fcntl nfs cifs
    N=$V refused $label fcntl cifs nfs
    blocked_waiter "$label" $S $V
    nfs42_features "$label" $V "http://10.0.2.100:$HTTP_PORT/metrics"
    eas_shared "$label" $V
    if timeout 60 umount $V; then result "$label/unmount" PASS; else result "$label/unmount" FAIL; fi
}
# Extended attributes are one store, the file's user xattrs: the user.origin NFSv4.2 set
# (nfs42-features) cifs reads as an SMB EA (QUERY_INFO FileFullEaInformation) and lists, and an EA
# cifs sets (SET_INFO, its open recalling the NFS client's delegation of the file) NFSv4.2 reads
# after opening the file (close-to-open drops what its xattr cache kept).
eas_shared() {                              # eas_shared LABEL NFS_DIR
    local label=$1 f=xattr-$1.txt out
    out=$(python3 - "$S/$f" "$2/$f" "$label" <<'PY' 2>&1
import os, sys
smb, nfs, label = sys.argv[1:4]
try:
    got = os.getxattr(smb, "user.origin")
    listed = os.listxattr(smb)
    os.setxattr(smb, "user.from-cifs", f"cifs-{label}".encode())
    open(nfs).close()
    back = os.getxattr(nfs, "user.from-cifs")
    ok = got == f"guest-{label}".encode() and back == f"cifs-{label}".encode() and "user.origin" in listed
    print("PASS" if ok else "FAIL", f"cifs read user.origin={got!r}, lists {listed}; NFSv4.2 read user.from-cifs={back!r}")
except OSError as e:
    print("FAIL", e)
PY
)
    if [[ $out == PASS* ]]; then result "$label/eas-shared" PASS "${out#PASS }"
    else result "$label/eas-shared" FAIL "$out"; fi
}

# Delegations (RFC 8881 §10.4) of files the NFSv4.1 client holds open, recalled when cifs writes:
# read: a file cifs made at the start (its handle closed since), open for reading on NFS, is delegated
# for reading (the client then opens, reads and caches it without asking); cifs appending to it
# recalls the delegation (CB_RECALL), the SMB CREATE waits for the client's DELEGRETURN (after it
# turned its local open into a real one, CLAIM_DELEG_CUR_FH), and the client sees the new line.
# write: a file the client writes itself is delegated for writing (it keeps its writes); cifs
# rewriting it recalls that, the client writes back and returns it, and reads what cifs wrote.
delegation_recalled() {                     # delegation_recalled LABEL NFS_DIR
    local label=$1 f=v41-deleg-$1.txt held returned got i
    event() { host_get "$HTTP_PORT" /metrics | awk -v e="event=\"$1\"" 'index($0, "rdmagate_nfs4_delegation_events_total{") == 1 && index($0, e) { v = $NF } END { print int(v) }'; }
    waited() { host_get "$HTTP_PORT" /metrics | awk 'index($0, "rdmagate_state_recall_wait_seconds_total{") == 1 { v += $NF } END { printf "%d", v * 1000 }'; }
    delegated() { host_get "$HTTP_PORT" /metrics | awk -v t="type=\"$1\"" 'index($0, "rdmagate_nfs4_delegations{") == 1 && index($0, t) { v = $NF } END { print int(v) }'; }
    local r=v41-deleg-read-$1.txt granted
    returned=$(event returned)
    for i in $(seq 10); do                  # until cifs has closed the handle it keeps a moment after a write
        granted=$(event granted)
        exec 5<$2/$r
        cat $2/$r > /dev/null
        granted="$granted -> $(event granted)"
        (( ${granted#* -> } > ${granted% -> *} )) && break
        exec 5<&-
        sleep 0.5
    done
    local w0=$(waited)
    echo "appended-under-delegation-$label" >> $S/$r
    local w1=$(waited)
    got=$(tail -n 1 $2/$r)
    exec 5<&-
    returned="$returned -> $(event returned)"
    if (( ${granted#* -> } > ${granted% -> *} && ${returned#* -> } > ${returned% -> *} )) \
            && [ "$got" = "appended-under-delegation-$label" ]; then
        result "$label/read-delegation-recalled" PASS "granted $granted (read delegations held $(delegated read)), returned $returned; the cifs write waited $((w1 - w0)) ms for it"
    else result "$label/read-delegation-recalled" FAIL "granted $granted, returned $returned, read '$got'; $(host_get "$HTTP_PORT" /metrics | grep -E '^rdmagate_nfs4_(deleg|callbacks)' | tr '\n' ' ')"; fi

    returned=$(event returned)
    exec 5>$2/$f                            # written over NFSv4.1, and kept open
    echo before-$label >&5
    held=$(delegated write)
    w0=$(waited)
    echo after-cifs-$label > $S/$f
    w1=$(waited)
    exec 5>&-
    got=$(cat $2/$f)
    returned="$returned -> $(event returned)"
    if [ "$held" -ge 1 ] && (( ${returned#* -> } > ${returned% -> *} )) && [ "$got" = "after-cifs-$label" ] \
            && [ "$(cat $S/$f)" = "after-cifs-$label" ]; then
        result "$label/write-delegation-recalled" PASS "write delegations held $held; returned $returned; the cifs write waited $((w1 - w0)) ms for it"
    else result "$label/write-delegation-recalled" FAIL "write delegations held $held, returned $returned, NFS read '$got', cifs '$(cat $S/$f)'; $(host_get "$HTTP_PORT" /metrics | grep -E '^rdmagate_nfs4_(deleg|callbacks)' | tr '\n' ' ')"; fi
}

# A process blocked in fcntl(F_SETLKW) on NFSv4.1 behind a lock another client holds (a process on
# the cifs mount: the client's own processes it serializes locally, without asking the server):
# the client sends WRITEW_LT and waits; when the holder exits, the gateway tells it by
# CB_NOTIFY_LOCK on the session's back channel (RFC 8881 §20.11) and the waiter gets the lock,
# without waiting for its next poll.
blocked_waiter() {                          # blocked_waiter LABEL HOLDER_DIR WAITER_DIR
    local label=$1 hf=$2/blocked-$1 lf=$3/blocked-$1 holder waiter released got before after i
    local setlkw='use Fcntl; open(my $fh, "+<", $ARGV[0]) or die "open: $!";
        my $lk = pack("s s x4 q q i x4", F_WRLCK, 0, 0, 0, 0); fcntl($fh, F_SETLKW, $lk) or die "lock: $!";
        if (@ARGV > 1) { open(my $o, ">", $ARGV[1]) or die; close $o; sleep $ARGV[2]; } exit 0;'
    notified() { host_get "$HTTP_PORT" /metrics | awk '/^rdmagate_nfs4_callbacks_total\{.*call="CB_NOTIFY_LOCK".*result="ok"/ { n += $2 } END { print n + 0 }'; }
    : > "$hf"
    rm -f /tmp/bw-held
    before=$(notified)
    perl -e "$setlkw" "$hf" /tmp/bw-held 2 &
    holder=$!
    for i in $(seq 100); do [ -e /tmp/bw-held ] && break; sleep 0.1; done
    timeout 30 perl -e "$setlkw" "$lf" &
    waiter=$!
    wait $holder
    released=$(date +%s%N)
    if wait $waiter; then got=$(date +%s%N); else got=""; fi
    for i in $(seq 50); do after=$(notified); [ "${after%.*}" -gt "${before%.*}" ] && break; sleep 0.2; done
    if [ -n "$got" ] && [ "${after%.*}" -gt "${before%.*}" ]; then
        result "$label/blocked-lock-notified" PASS "the waiter got the lock $(( (got - released) / 1000000 )) ms after the holder exited; CB_NOTIFY_LOCK sent $before -> $after"
    else result "$label/blocked-lock-notified" FAIL "waiter got it: $([ -n "$got" ] && echo yes || echo no); CB_NOTIFY_LOCK sent $before -> $after; $(host_get "$HTTP_PORT" /metrics | grep -E '^rdmagate_nfs4_(callbacks|back)|LOCK' | tr '\n' ' ')"; fi
    rm -f /tmp/bw-held "$hf"
}
head -c 3000000 /dev/urandom > $S/v41-data.bin
echo first-line > $S/v41-grows.txt
for l in v42-tcp v42-rdma; do echo "made-by-cifs" > $S/v41-deleg-read-$l.txt; done
# no vers: the client mounts NFSv4.2, which the gateway serves beside NFSv3 and NFSv4.1 by default
nfs4 v42-tcp "proto=tcp,port=$NFS_PORT" || rc=1
nfs4 v42-rdma "proto=rdma,port=$RDMA_PORT" || rc=1
# the common NFS workload (workloads/fs-workload.sh, as against knfsd) over NFSv4.1, both transports,
# and over NFSv4.0
export WORKLOAD_BIG_MIB=${WORKLOAD_BIG_MIB:-64}
timeout 900 /job/workloads/nfs-workload.sh rdmagate-v41-tcp 10.0.2.100:/data "vers=4.1,proto=tcp,port=$NFS_PORT" || rc=1
timeout 900 /job/workloads/nfs-workload.sh rdmagate-v41-rdma 10.0.2.100:/data "vers=4.1,proto=rdma,port=$RDMA_PORT" || rc=1
# NFSv4.0 (SETCLIENTID, OPEN_CONFIRM, owner seqids; what macOS speaks), with the workload's locks, on both
timeout 900 /job/workloads/nfs-workload.sh rdmagate-v40-tcp 10.0.2.100:/data "vers=4.0,proto=tcp,port=$NFS_PORT" || rc=1
timeout 900 /job/workloads/nfs-workload.sh rdmagate-v40-rdma 10.0.2.100:/data "vers=4.0,proto=rdma,port=$RDMA_PORT" || rc=1

coherence coherence-tcp "vers=3,proto=tcp,port=$NFS_PORT,mountport=$MOUNT_PORT,mountproto=tcp" || rc=1
coherence coherence-rdma "vers=3,proto=rdma,port=$RDMA_PORT,mountport=$MOUNT_PORT,mountproto=tcp" || rc=1
if try_lock fcntl $S/host-locked.dat; then result host-lock-refused-to-cifs FAIL "cifs got the lock a host process holds"
else result host-lock-refused-to-cifs PASS; fi
timeout 60 umount $S

kernel_clean || rc=1
lab_summary || rc=1
exit $rc
