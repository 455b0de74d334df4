#!/usr/bin/env bash
# Power loss after the gateway said data was stable: rdmagate runs IN the guest (class path
# /job/cp, JDK /opt/jdk) and exports a disk of its own (/dev/vdb, ext4, made by the host), which
# the guest's kernel clients mount: NFSv3 and NFSv4.1 over TCP, cifs (SMB 3.1.1). Nothing reaches
# that disk unless someone asks: the guest's periodic writeback is off and the journal commits
# only when forced, so what the gateway did not flush stays in the guest's page cache.
#
# Each client writes files and waits for their stability the way applications do (fsync: NFS
# COMMIT after UNSTABLE writes, or one FILE_SYNC WRITE for a file that fits in one; SMB2 FLUSH,
# or an open with FILE_WRITE_THROUGH; over NFS also close, which the Linux client turns into a
# COMMIT), then makes NFS namespace changes (RFC 1813 §3.3: a server replies to MKDIR, RENAME, REMOVE
# only once they are on stable storage). Everything acknowledged is listed in /job/acked. A file
# written last, straight to the disk without fsync, is the control. Then the guest loses power
# (sysrq b: reset, no sync). The host checks the disk: every acknowledged file whole under its
# name, every acknowledged removal gone, the control lost (the reset really dropped the cache).
# Just before the reset it saves the NFS clients' handles of the acknowledged files
# (name_to_handle_at, in /job/handles).
#
# With BOOT=2 the job is the boot after the power loss, on the same disk: the gateway starts on the
# state the first boot left there (its handle store), and a client opens the saved handles again
# (open_by_handle_at on fresh mounts): every one must name its file, with the acknowledged content
# (/job/reopened), as a client that held the handles across the server's crash expects.
set -uo pipefail
. /job/lib.sh
[ -f /job/env ] && . /job/env
echo 1 > /proc/sys/kernel/panic_on_oops
rc=0
# the disk holds the export and the gateway's state (its handle store), as a server's disk does
V=/srv/disk D=/srv/disk/export N3=/mnt/v3 N4=/mnt/v41 S=/mnt/smb ST=/mnt/smb-nostrictsync
mkdir -p $V $N3 $N4 $S $ST

if [ "${BOOT:-1}" = 2 ]; then
    check disk mount /dev/vdb $V || { lab_summary; exit 1; }
else
    : > /job/acked
    check disk bash -c "sysctl -qw vm.dirty_writeback_centisecs=0 vm.dirty_expire_centisecs=360000 \
        vm.dirty_background_ratio=90 vm.dirty_ratio=90 && mount -o commit=3600 /dev/vdb $V && mkdir $D $V/state" \
        || { lab_summary; exit 1; }
fi
cat > /tmp/rdmagate.yaml <<CONF
stateDir: $V/state
http: {address: 127.0.0.1, port: 9049}
exports:
  - name: data
    path: $D
    nfsPath: /data
    clients: [{match: "*", rootSquash: false}]
shares:
  - {name: data, export: data}
users:
  - {name: $SMB_USER, uid: 0, gid: 0, ntHash: $SMB_NTHASH}
transports:
  nfs: {port: 2050, mountPort: 20058, versions: ["3", "4.1"]}
  rpcbind: {mode: off}
CONF
KEEP_STATE=1 start_rdmagate /tmp/rdmagate.yaml $V/state 2050 || { lab_summary; exit 1; }

# NFS calls the gateway has answered, by procedure: PROGRAM PROCEDURE
calls() {
    curl -sS --max-time 10 http://127.0.0.1:9049/metrics | awk -v p="procedure=\"$2\"" -v g="program=\"$1\"" \
        'index($0, "rdmagate_nfs_requests_total{") == 1 && index($0, p) && index($0, g) { n += $NF } END { print n + 0 }'
}

check v3-mount timeout 120 mount -t nfs -o vers=3,proto=tcp,port=2050,mountport=20058,mountproto=tcp,nolock \
    127.0.0.1:/data $N3 || rc=1
check v41-mount timeout 120 mount -t nfs -o vers=4.1,proto=tcp,port=2050 127.0.0.1:/data $N4 || rc=1

# the gateway's class path has the probe that saves and opens handles (HandleProbe)
probe() { java $(lab_jvm_opts) --enable-native-access=ALL-UNNAMED -cp "$(cat /job/cp/classpath)" \
    io.rdmagate.interop.HandleProbe "$@"; }

if [ "${BOOT:-1}" = 2 ]; then
    # HANDLE NAME TYPE HEX, NAME under the mount (v3/... or v41/...) the handle came from
    : > /job/reopened
    while read -r _ name type hex; do
        if line=$(probe open /mnt/${name%%/*} "$name" "$type" "$hex" 2>&1); then echo "$line" >> /job/reopened
        else echo "STALE $name $line" >> /job/reopened; fi
    done < /job/handles
    n=$(grep -c '^REOPENED' /job/reopened)
    if [ "$n" = "$(wc -l < /job/handles)" ]; then result handles-reopened PASS "$n handles name their files"
    else result handles-reopened FAIL "$(grep -v '^REOPENED' /job/reopened | tr '\n' ' ')"; rc=1; fi
    kernel_clean || rc=1
    lab_summary || rc=1
    exit "$rc"
fi
check cifs-mount timeout 120 mount -t cifs -o "vers=3.1.1,username=$SMB_USER,password=$SMB_PASSWORD" \
    //127.0.0.1/data $S || rc=1
# fsync sends no SMB2 FLUSH here: what it writes is stable only if the gateway writes it through
check cifs-nostrictsync-mount timeout 120 mount -t cifs -o "vers=3.1.1,nostrictsync,username=$SMB_USER,password=$SMB_PASSWORD" \
    //127.0.0.1/data $ST || rc=1

# acked_write CHECK PATH SIZE fsync|close|osync: SIZE random bytes written to PATH on a mount and
# made stable as a program does: dd conv=fsync, cp (close, no fsync), or dd oflag=sync into the
# existing file; the file (by its name in the export) is acknowledged once that returns
acked_write() {
    local name=${2#/mnt/*/} cmd out
    case $4 in
        fsync) cmd=(dd if=/tmp/src of="$2" bs=1M conv=fsync) ;;
        close) cmd=(cp /tmp/src "$2") ;;
        osync) cmd=(dd if=/tmp/src of="$2" bs=64k oflag=sync conv=notrunc) ;;
    esac
    head -c "$3" /dev/urandom > /tmp/src
    if out=$("${cmd[@]}" 2>&1); then
        echo "ACK $name $(sha256sum < /tmp/src | cut -d' ' -f1)" >> /job/acked
        result "$1" PASS "$3 bytes"
    else result "$1" FAIL "$out"; rc=1; fi
}

c0=$(calls nfs COMMIT)
acked_write v3-commit $N3/v3-commit.bin 4194304 fsync
c1=$(calls nfs COMMIT)
acked_write v3-file-sync $N3/v3-small.txt 3000 fsync
c2=$(calls nfs COMMIT)
acked_write v41-commit $N4/v41-commit.bin 4194304 fsync
acked_write v41-file-sync $N4/v41-small.txt 3000 fsync
acked_write smb-flush $S/smb-flush.bin 4194304 fsync
# O_SYNC on an existing file: cifs opens it with CREATE_WRITE_THROUGH (MS-FSA Open.Mode), and
# with nostrictsync asks for nothing more; the gateway must write every WRITE on that open through
: > $ST/smb-through.bin
acked_write smb-write-through $ST/smb-through.bin 1048576 osync
# the kinds of stability the clients asked for, as the gateway counted them
if (( c1 > c0 && c2 == c1 )); then result stability-kinds PASS "COMMIT after the 4 MiB file, none after the small one (FILE_SYNC)"
else result stability-kinds FAIL "NFS COMMITs: $c0 -> $c1 -> $c2"; rc=1; fi

# namespace changes, each acknowledged by its reply
namespace() {
    mkdir $N3/v3-dir && mv $N3/v3-commit.bin $N3/v3-dir/moved.bin && rm $N3/v3-small.txt \
        && mv $N4/v41-commit.bin $N4/v41-renamed.bin && rm $N4/v41-small.txt
}
if out=$(namespace 2>&1); then
    sed -i -e 's| v3-commit.bin | v3-dir/moved.bin |' -e 's| v41-commit.bin | v41-renamed.bin |' \
        -e '/ v3-small.txt /d' -e '/ v41-small.txt /d' /job/acked
    printf 'GONE %s\n' v3-commit.bin v3-small.txt v41-commit.bin v41-small.txt >> /job/acked
    result namespace PASS "mkdir, rename, remove over NFSv3; rename, remove over NFSv4.1"
else result namespace FAIL "$out"; rc=1; fi

# written and closed, no fsync, just before the power goes: the Linux client writes back and
# commits on close (close-to-open), under an NFSv4.1 write delegation too because the gateway
# gives it a space limit of 0 (with none it would only start writing back, and commit later)
acked_write v3-close $N3/v3-closed.bin 2097152 close
# this client's NFSv4.1 files are written under write delegations (the ones above already were)
granted=$(curl -sS --max-time 10 http://127.0.0.1:9049/metrics | awk 'index($0, "rdmagate_nfs4_delegation_events_total{") == 1 \
    && index($0, "event=\"granted\"") { v = $NF } END { print int(v) }')
if [ "$granted" -ge 1 ]; then result v41-write-delegation PASS "$granted delegations granted so far"
else result v41-write-delegation FAIL "no delegation granted"; rc=1; fi

# the control: written straight to the disk, never flushed
head -c 1048576 /dev/urandom > $D/control.bin
echo "LOST control.bin $(sha256sum < $D/control.bin | cut -d' ' -f1)" >> /job/acked
kernel_clean || rc=1
# last, so that little but its own close can make it stable before the power goes
acked_write v41-close $N4/v41-closed.bin 2097152 close
# the NFS clients' handles of what they made and renamed, kept for the boot after the power loss
if out=$(probe save /mnt v3/v3-dir/moved.bin v3/v3-closed.bin v41/v41-renamed.bin v41/v41-closed.bin 2>&1 \
        > /job/handles.tmp); then mv /job/handles.tmp /job/handles; result handles-saved PASS "$(wc -l < /job/handles)"
else result handles-saved FAIL "$out"; rc=1; fi
lab_summary || rc=1
echo "$rc" > /job/exit-code.tmp && mv /job/exit-code.tmp /job/exit-code
echo "power-loss: the guest resets now, without a sync"
echo b > /proc/sysrq-trigger
sleep 30
