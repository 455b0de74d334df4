#!/usr/bin/env bash
# Records what the Linux kernel's NFS and cifs clients send, for the fuzz campaigns' seed corpora
# (lab.sh seeds [DIR]). rdmagate runs IN the guest (its class path in /job/cp, the JDK shared at
# /opt/jdk); a recording proxy (io.rdmagate.bench.Seeds proxy) sits in front of its NFS, MOUNT and
# SMB ports on 127.0.0.1, and the kernel clients mount through it:
#   - NFSv3 over TCP (MOUNT through the proxy too), then NFSv4.0, 4.1 and 4.2 over TCP, each running
#     the common workload with small sizes, and NFSv4.2's features (SEEK, ALLOCATE, DEALLOCATE, COPY,
#     CLONE, xattrs, ACL): /job/seeds/kernel-nfs3 and /job/seeds/kernel-nfs4;
#   - cifs, SMB 3.1.1, the common workload, user xattrs (EAs) and statfs: /job/seeds/cifs.
# rsize and wsize of 64 KiB keep READs and WRITEs small; each corpus keeps at most a few messages
# of each kind (Seeds.select). One RESULT line per mount, workload and corpus.
set -uo pipefail
. /job/lib.sh
. /job/workloads/fs-workload.sh
. /job/workloads/nfs42-features.sh
export WORKLOAD_BIG_MIB=${WORKLOAD_BIG_MIB:-2} WORKLOAD_FILES=${WORKLOAD_FILES:-12}
echo 1 > /proc/sys/kernel/panic_on_oops

mkdir -p /srv/rdmagate /var/lib/rdmagate /job/seeds
cat > /tmp/rdmagate.yaml <<YAML
stateDir: /var/lib/rdmagate
http: {address: 127.0.0.1, port: 9049}
exports:
  - name: data
    path: /srv/rdmagate
    nfsPath: /data
    # the recording proxy dials from unprivileged ports
    clients: [{match: "*", rootSquash: false, secure: false}]
shares:
  - {name: data, export: data}
transports:
  nfs: {port: 2050, mountPort: 20058, nlmPort: 20051, nsmPort: 20052, versions: ["3", "4.0", "4.1", "4.2"]}
  rpcbind: {mode: off}
  smb: {port: 1445}
YAML
check rdmagate-user add_smb_user /tmp/rdmagate.yaml lab labpass || exit 1
start_rdmagate /tmp/rdmagate.yaml /var/lib/rdmagate 2050 || exit 1

cp=$(cat /job/cp/classpath 2>/dev/null || echo '/job/cp/*')
# record NAME rpc|smb PORT:TARGET...: starts a recording proxy writing /job/seeds/NAME when
# stop_recording closes its input; waits until its first port accepts
record() {
    local name=$1 framing=$2 first=${3%%:*}
    shift 2
    rm -f /tmp/seeds.fifo && mkfifo /tmp/seeds.fifo
    java $(lab_jvm_opts) -cp "$cp" io.rdmagate.bench.Seeds proxy "$framing" "/job/seeds/$name" "$@" \
        < /tmp/seeds.fifo > "/job/seeds-$name.log" 2>&1 &
    RECORDER=$!
    exec 7> /tmp/seeds.fifo
    for _ in $(seq 240); do
        bash -c "exec 3<>/dev/tcp/127.0.0.1/$first" 2>/dev/null && { result "$name/recorder" PASS; return 0; }
        kill -0 $RECORDER 2>/dev/null || break
        sleep 0.5
    done
    result "$name/recorder" FAIL "$(tail -3 "/job/seeds-$name.log" | tr '\n' ' ')"
    return 1
}
stop_recording() {                           # stop_recording NAME: the corpus is written when the proxy ends
    exec 7>&-
    wait $RECORDER
    local n
    n=$(grep -c . "/job/seeds/$1/index.txt" 2>/dev/null || echo 0)
    if [ "$n" -gt 0 ]; then result "$1/corpus" PASS "$n messages"; else result "$1/corpus" FAIL "nothing recorded"; fi
}

# nfs_session LABEL OPTIONS: mounts 127.0.0.1:/data through the proxy, runs the workload, unmounts
nfs_session() {
    local label=$1 opts=$2
    mkdir -p "/mnt/$label"
    if ! timeout 180 mount -t nfs -o "$opts" 127.0.0.1:/data "/mnt/$label"; then
        result "$label/mount" FAIL "$opts"
        return 1
    fi
    result "$label/mount" PASS "$(grep " /mnt/$label " /proc/mounts | cut -d' ' -f4)"
    fs_workload "$label" "/mnt/$label" "mode symlink hardlink"
    [[ $opts == *vers=4.2* ]] && nfs42_features "$label" "/mnt/$label" http://127.0.0.1:9049/metrics
    timeout 120 umount "/mnt/$label" && result "$label/unmount" PASS || result "$label/unmount" FAIL
}

small=rsize=65536,wsize=65536
if record kernel-nfs3 rpc 3049:2050 3048:20058; then
    nfs_session nfs3 "vers=3,proto=tcp,port=3049,mountport=3048,mountproto=tcp,nolock,$small"
    stop_recording kernel-nfs3
fi
if record kernel-nfs4 rpc 3049:2050; then
    nfs_session nfs40 "vers=4.0,proto=tcp,port=3049,$small"
    nfs_session nfs41 "vers=4.1,proto=tcp,port=3049,$small"
    nfs_session nfs42 "vers=4.2,proto=tcp,port=3049,$small"
    stop_recording kernel-nfs4
fi
if record cifs smb 4445:1445; then
    mkdir -p /mnt/cifs
    if timeout 180 mount -t cifs -o port=4445,username=lab,password=labpass,vers=3.1.1 //127.0.0.1/data /mnt/cifs; then
        result cifs/mount PASS
        fs_workload cifs /mnt/cifs "hardlink"
        echo eas > /mnt/cifs/seed-eas.txt
        # EAs (SET_INFO and QUERY_INFO FileFullEaInformation); the guest has python, not attr's tools
        check cifs/xattrs python3 -c 'import os, sys; p = sys.argv[1]; os.setxattr(p, "user.seed", b"recorded")
assert os.getxattr(p, "user.seed") == b"recorded" and "user.seed" in os.listxattr(p)
os.removexattr(p, "user.seed")' /mnt/cifs/seed-eas.txt
        check cifs/statfs stat -f /mnt/cifs
        timeout 120 umount /mnt/cifs && result cifs/unmount PASS || result cifs/unmount FAIL
    else
        result cifs/mount FAIL
    fi
    stop_recording cifs
fi
kernel_clean
lab_summary
