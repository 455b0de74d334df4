#!/usr/bin/env bash
# Kerberos logons of the kernel cifs client (sec=krb5, through the kernel's upcall to
# cifs.upcall), run inside the guest:
#
#   cifs-krb5.sh LABEL //FQDN/SHARE MOUNT_OPTIONS
#
# The guest runs no KDC and has no kinit: the host test puts a Kerberos configuration at
# /job/krb5.conf and root's ticket cache at /job/krb5cc, holding the ticket-granting ticket and
# the ticket for cifs/FQDN, so cifs.upcall finds the service ticket without asking a KDC. FQDN is
# the name in the principal; the options carry ip= for the address. Mounts signed and then
# sealed (encryption keyed from the Kerberos session key), writes and reads back a file in the
# share's krb directory (which the host test checks is owned by the principal's mapped uid).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "${LAB_LIB:-$here/../lib.sh}"

label=$1 source=$2 opts=$3
mnt=/mnt/$label
mkdir -p "$mnt"
install -m 0644 /job/krb5.conf /etc/krb5.conf
install -m 0600 /job/krb5cc /tmp/krb5cc_0
head -c 4M /dev/urandom > /tmp/krb5.src

for mode in sign seal; do
    o="$opts,sec=krb5"
    [ "$mode" = seal ] && o="$o,seal"
    if ! out=$(timeout 120 mount -t cifs -o "$o" "$source" "$mnt" 2>&1); then
        result "$label/$mode-mount" FAIL "mount -t cifs -o $o $source: $out $(dmesg | tail -4 | tr '\n' ' ')"
        continue
    fi
    result "$label/$mode-mount" PASS
    sec=$(grep -ioE 'Security type: *[A-Za-z]+' /proc/fs/cifs/DebugData | tail -1)
    if [[ ${sec,,} == *kerberos* ]]; then
        result "$label/$mode-sec-type" PASS "$sec"
    else
        result "$label/$mode-sec-type" FAIL "${sec:-no security type in DebugData}"
    fi
    check "$label/$mode-io" bash -c "cp /tmp/krb5.src $mnt/krb/$mode.bin && echo 3 > /proc/sys/vm/drop_caches \
        && cmp /tmp/krb5.src $mnt/krb/$mode.bin"
    timeout 60 umount "$mnt" && result "$label/$mode-unmount" PASS || result "$label/$mode-unmount" FAIL
done
