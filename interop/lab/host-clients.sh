#!/usr/bin/env bash
# The host's clients in the lab's soak (lab.sh soak): libnfs (NFSv3) and smbj loops on the host,
# against the gateway running in the guest, reached through qemu's forwards (run-guest.sh --expose).
#
#   host-clients.sh JOB_DIR NFS_PORT MOUNT_PORT SMB_PORT WORKERS CLASSPATH
#
# The guest's soak.sh paces them through files in JOB_DIR/host: for each phase (warm, soak) it
# creates PHASE.go when its own workers start and PHASE.stop when they end; this script then
# starts WORKERS libnfs loops and WORKERS smbj workers (bench's SmbjSoakClient), stops them at
# PHASE.stop, and writes their WORKER and ERROR lines to PHASE.done, which the guest waits for
# before its clients unmount. A libnfs loop writes a file of its own whole with random content
# (64 KiB to 1 MiB) with nfs-cp, copies it back and compares, as the guest's workers do (a new
# file each round: nfs-cp does not overwrite).
set -uo pipefail
job=$1 nfs=$2 mount=$3 smb=$4 workers=$5 cp=$6
host=$job/host
mkdir -p "$host"

# libnfs_worker ID STOP: prints WORKER ID libnfs rounds N errors M. nfs-cp creates its target
# exclusively and libnfs-utils has no rm, so each round writes a file of its own; the guest's
# soak.sh removes those older than a minute.
libnfs_worker() {
    local id=$1 stop=$2 rounds=0 errors=0 blocks scratch=/tmp/rdmagate-soak-$1 url
    while [ ! -e "$stop" ]; do
        url="nfs://127.0.0.1/data/soak/$id-$rounds.bin?version=3&nfsport=$nfs&mountport=$mount"
        blocks=$((1 + RANDOM % 16))
        head -c $((blocks * 65536)) /dev/urandom > "$scratch.w"
        if ! timeout 120 nfs-cp "$scratch.w" "$url" > "$scratch.err" 2>&1; then
            errors=$((errors + 1)); echo "ERROR $id write: $(head -c 200 "$scratch.err")"
        elif ! timeout 120 nfs-cp "$url" "$scratch.r" > "$scratch.err" 2>&1 || ! cmp -s "$scratch.w" "$scratch.r"; then
            errors=$((errors + 1)); echo "ERROR $id read: $(head -c 200 "$scratch.err")"
        fi
        rm -f "$scratch.r"
        rounds=$((rounds + 1))
    done
    rm -f "$scratch".*
    echo "WORKER $id libnfs rounds $rounds errors $errors"
}

# waits for FILE to exist, polling each second, up to the soak's whole length (3 h)
await() {
    local i
    for i in $(seq 10800); do
        [ -e "$1" ] && return 0
        sleep 1
    done
    return 1
}

for phase in warm soak; do
    await "$host/$phase.go" || exit 1
    pids=()
    for w in $(seq "$workers"); do
        libnfs_worker "host-libnfs-$phase-$w" "$host/$phase.stop" > "$host/$phase-libnfs-$w.log" 2>&1 &
        pids+=($!)
    done
    "$JAVA_HOME/bin/java" -cp "$cp" io.rdmagate.bench.smb.SmbjSoakClient "$smb" data lab labpass soak "$workers" \
        "host-smbj-$phase" "$host/$phase.stop" > "$host/$phase-smbj.log" 2>&1 &
    pids+=($!)
    await "$host/$phase.stop"
    for p in "${pids[@]}"; do wait "$p"; done
    grep -hE '^(WORKER|ERROR)' "$host/$phase"-*.log > "$host/$phase.tmp"
    if ! grep -q '^WORKER host-smbj' "$host/$phase.tmp"; then      # the JVM did not run its workers
        echo "ERROR host-smbj-$phase: $(tail -3 "$host/$phase-smbj.log" | tr '\n' ' ')" >> "$host/$phase.tmp"
    fi
    mv "$host/$phase.tmp" "$host/$phase.done"
done
