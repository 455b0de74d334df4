#!/usr/bin/env bash
# Windows ACLs through the kernel cifs client, run inside the guest:
#
#   cifs-acl.sh LABEL //SERVER/SHARE MOUNT_OPTIONS
#
# With cifs-utils' getcifsacl and setcifsacl (the system.cifs_acl xattr, SIDs given raw): sets a
# DACL that lets the owner only read a file, sees a write refused and a read allowed, gives full
# control back, and sees a new file inherit its directory's inheritable entry. The options
# should hold closetimeo=0, so that a handle the client keeps after a close does not stand in for
# the open the server is meant to refuse.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "${LAB_LIB:-$here/../lib.sh}"

label=$1 source=$2 opts=$3
mnt=/mnt/$label
mkdir -p "$mnt"
if ! out=$(timeout 120 mount -t cifs -o "$opts" "$source" "$mnt" 2>&1); then
    result "$label/mount" FAIL "mount -t cifs -o $opts $source: $out"
    lab_summary
    exit 1
fi
result "$label/mount" PASS

read_only=0x001200a9 full=0x001f01ff
f=$mnt/acl-$label.txt d=$mnt/acl-dir-$label
rm -rf "$f" "$d"
echo data > "$f"
owner=$(getcifsacl -r "$f" 2>&1 | sed -n 's/^OWNER://p')
if [[ $owner == S-1-* ]]; then
    result "$label/getcifsacl" PASS "owner $owner"
else
    result "$label/getcifsacl" FAIL "$(getcifsacl -r "$f" 2>&1 | head -5 | tr '\n' ' ')"
fi

# an allowed ACE as getcifsacl prints it: the type ALLOWED or, raw (-r), 0x0; some masks by name
mask_is() {                                 # mask_is FILE SID FLAGS HEXMASK NAME
    getcifsacl -r "$1" 2>/dev/null | grep -qiE "^ACL:$2:(ALLOWED|0x0)/$3/($4|$(printf '0x%x' "$4")|$5)\$"
}
check "$label/set-read-only" setcifsacl -S "ACL:$owner:ALLOWED/0x0/$read_only" "$f"
if mask_is "$f" "$owner" 0x0 "$read_only" R && [ "$(getcifsacl -r "$f" | grep -c '^ACL:')" = 1 ]; then
    result "$label/reads-back" PASS
else
    result "$label/reads-back" FAIL "$(getcifsacl -r "$f" 2>&1 | tr '\n' ' ')"
fi
if (echo more >> "$f") 2>/dev/null; then
    result "$label/write-refused" FAIL "the DACL allows only reading, yet the write went through"
else
    result "$label/write-refused" PASS
fi
check "$label/read-allowed" grep -qx data "$f"
check "$label/full-control-back" setcifsacl -S "ACL:$owner:ALLOWED/0x0/$full" "$f"
check "$label/write-allowed" bash -c "echo more >> '$f' && [ \"\$(wc -l < '$f')\" = 2 ]"

mkdir "$d"
check "$label/set-inheritable" setcifsacl -S "ACL:$owner:ALLOWED/0x0/$full,ACL:S-1-1-0:ALLOWED/0x3/$read_only" "$d"
echo new > "$d/new.txt"
if mask_is "$d/new.txt" S-1-1-0 0x0 "$read_only" R; then
    result "$label/inherited" PASS
else
    result "$label/inherited" FAIL "$(getcifsacl -r "$d/new.txt" 2>&1 | tr '\n' ' ')"
fi
rm -rf "$f" "$d"

if timeout 60 umount "$mnt" && ! grep -q " $mnt " /proc/mounts; then
    result "$label/unmount" PASS
else
    result "$label/unmount" FAIL "$(grep " $mnt " /proc/mounts)"
fi
lab_summary
