#!/usr/bin/env bash
# NFS with Kerberos (RPCSEC_GSS, sec=krb5) from the kernel client, run inside the guest:
#
#   nfs-krb5.sh LABEL FQDN:/EXPORT MOUNT_OPTIONS [krb5|krb5i|krb5p]
#
# The host test hands the guest a krb5.conf (/job/krb5.conf: the realm's KDC at 10.0.2.100:88,
# forwarded to the host's KDC, over TCP) and a keytab with the guest's machine principal
# host/client.example.test (/job/krb5.keytab). rpc.gssd gets root's tickets with it, as a
# Kerberos NFS client host does. FQDN resolves to 10.0.2.100 through /etc/hosts; gssd asks a
# ticket for nfs/FQDN. Mounts with the flavor (krb5 by default), checks the mount says so,
# writes and reads back a file.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "${LAB_LIB:-$here/../lib.sh}"

label=$1 source=$2 opts=$3 sec=${4:-krb5}
server=${source%%:*}
mnt=/mnt/$label
mkdir -p "$mnt"
if [ ! -f /etc/krb5.keytab ]; then
    install -m 0644 /job/krb5.conf /etc/krb5.conf
    install -m 0600 /job/krb5.keytab /etc/krb5.keytab
    grep -q " $server" /etc/hosts || echo "10.0.2.100 $server" >> /etc/hosts
    echo "127.0.1.1 client.example.test client" >> /etc/hosts
    hostname client.example.test
    mkdir -p /run/rpc_pipefs
    mountpoint -q /run/rpc_pipefs || mount -t rpc_pipefs sunrpc /run/rpc_pipefs
    rpc.gssd -f -vvv -p /run/rpc_pipefs > /job/gssd.log 2>&1 &
fi

if ! out=$(timeout 180 mount -t nfs -o "$opts,sec=$sec" "$source" "$mnt" 2>&1); then
    result "$label/mount" FAIL "mount -o $opts,sec=$sec $source: $out $(tail -5 /job/gssd.log 2>/dev/null | tr '\n' ' ')"
    exit 1
fi
result "$label/mount" PASS
line=$(grep " $mnt " /proc/mounts)
if [[ $line == *sec=$sec,* || $line == *sec=$sec\ * ]]; then
    result "$label/sec" PASS "$(echo "$line" | cut -d' ' -f4 | tr ',' '\n' | grep -E '^(sec|vers|proto)=' | tr '\n' ' ')"
else
    result "$label/sec" FAIL "want sec=$sec: ${line:-not in /proc/mounts}"
fi
head -c 4M /dev/urandom > /tmp/$label.src
check "$label/io" bash -c "mkdir -p $mnt/krb5 && cp /tmp/$label.src $mnt/krb5/$label.bin && echo 3 > /proc/sys/vm/drop_caches \
    && cmp /tmp/$label.src $mnt/krb5/$label.bin"
timeout 60 umount "$mnt" && result "$label/unmount" PASS || result "$label/unmount" FAIL
