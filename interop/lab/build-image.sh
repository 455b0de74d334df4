#!/usr/bin/env bash
# Builds the interop guest image, or finds it already built, and prints its directory.
#
#   build-image.sh            build if missing, print the image directory on stdout
#   build-image.sh --print    print the directory the current inputs map to; build nothing
#
# The image lives in $RDMAGATE_LAB_CACHE (default /var/cache/rdmagate-lab)/<hash>, where
# <hash> is the sha256 of this script, packages.txt, guest/*, patches/* and the kernel
# chosen. Same inputs, same directory: a clean clone reuses it; changed inputs build a new
# one. A build works in .work-<hash> and renames the result into place as its last step,
# so an interrupted build never leaves a directory that looks finished; a rerun resumes
# from the last completed stage.
#
# The directory holds: rootfs.ext4 (4 GiB sparse, ext4, opened by qemu with snapshot=on so
# it never changes), vmlinuz, initrd.img, kernel-release, manifest.txt.
#
# Kernel: Debian bookworm's linux-image-amd64 from the point release (bookworm/main),
# or $RDMAGATE_LAB_KERNEL (a Debian version such as 6.1.176-1). Debian builds it without
# siw, SMB Direct in cifs, and SMB Direct in ksmbd, so those three modules are built here
# from linux-source-6.1 of the same version against its headers (unpacked from the .debs
# into the work directory; nothing is installed on the host for them) and installed into
# /lib/modules/<kver>/updates, which modprobe prefers over the stock cifs.ko and ksmbd.ko.
#
# Host needs: root, debootstrap, e2fsprogs (mkfs.ext4 -d), gcc/make/bc/flex/bison,
# libelf-dev, libssl-dev, xz-utils, and apt lists that know bookworm (the CI installs them).
set -euo pipefail

LAB=$(cd "$(dirname "$0")" && pwd)
CACHE=${RDMAGATE_LAB_CACHE:-/var/cache/rdmagate-lab}
MIRROR=${RDMAGATE_LAB_MIRROR:-http://deb.debian.org/debian}
SUITE=bookworm
IMAGE_SIZE=4G

log() { echo "build-image: $*" >&2; }
die() { log "$*"; exit 1; }

[ "$(id -u)" = 0 ] || die "needs root (debootstrap, chroot, mkfs of a root file system); run it as root"
for tool in debootstrap mkfs.ext4 gcc make flex bison bc xz apt-get dpkg-deb sha256sum; do
    command -v "$tool" >/dev/null || die "missing host tool '$tool' (see .ci/run for the package list)"
done

# --- the kernel: Debian version and ABI name ---------------------------------------------
kernel_version() {
    if [ -n "${RDMAGATE_LAB_KERNEL:-}" ]; then
        echo "$RDMAGATE_LAB_KERNEL"
        return
    fi
    apt-cache madison linux-image-amd64 2>/dev/null | awk -F'|' '$3 ~ /bookworm\/main/ {gsub(/ /,"",$2); print $2; exit}'
}
KDEB=$(kernel_version)
if [ -z "$KDEB" ]; then
    log "apt knows no bookworm linux-image-amd64; running apt-get update"
    apt-get update -qq >&2
    KDEB=$(kernel_version)
fi
[ -n "$KDEB" ] || die "cannot find linux-image-amd64 in bookworm/main in the apt lists"
KPKG=$(apt-cache show "linux-image-amd64=$KDEB" | sed -n 's/^Depends:.*\(linux-image-[0-9][^ ]*-amd64\) .*/\1/p' | head -1)
[ -n "$KPKG" ] || die "cannot resolve the kernel package of linux-image-amd64 $KDEB"
KVER=${KPKG#linux-image-}                  # e.g. 6.1.0-50-amd64
KABI=${KVER%-amd64}                        # e.g. 6.1.0-50

# --- the cache key ------------------------------------------------------------------------
PACKAGES=$(grep -v '^\s*#' "$LAB/packages.txt" | grep -v '^\s*$' | tr '\n' ',' | sed 's/,$//')
HASH=$(
    {
        echo "kernel $KDEB $KVER suite $SUITE mirror $MIRROR size $IMAGE_SIZE"
        for f in "$LAB/build-image.sh" "$LAB/packages.txt" "$LAB"/guest/* "$LAB"/patches/*; do
            echo "== ${f#"$LAB"/}"
            cat "$f"
        done
    } | sha256sum | cut -c1-16
)
OUT=$CACHE/$HASH
if [ "${1:-}" = "--print" ]; then
    echo "$OUT"
    exit 0
fi
if [ -f "$OUT/manifest.txt" ]; then
    echo "$OUT"
    exit 0
fi

mkdir -p "$CACHE"
exec 9>"$CACHE/.lock-$HASH"
flock 9                                    # one builder per key; a second caller waits
if [ -f "$OUT/manifest.txt" ]; then
    echo "$OUT"
    exit 0
fi

WORK=$CACHE/.work-$HASH
mkdir -p "$WORK"
start=$(date +%s)
log "building image $HASH (kernel $KVER, Debian $KDEB) in $WORK"
done_stage() { touch "$WORK/.done-$1"; }
stage_done() { [ -f "$WORK/.done-$1" ]; }

# --- stage 1: siw.ko, cifs.ko and ksmbd.ko with RDMA -------------------------------------
if ! stage_done modules; then
    rm -rf "$WORK/kbuild"
    mkdir -p "$WORK/kbuild/debs"
    log "fetching linux-source-6.1 and headers $KDEB"
    (cd "$WORK/kbuild/debs" && apt-get download -q \
        "linux-source-6.1=$KDEB" "linux-headers-$KVER=$KDEB" "linux-headers-$KABI-common=$KDEB" \
        "linux-kbuild-6.1=$KDEB" 2>&1 | { grep -v 'Download is performed unsandboxed' >&2 || true; }) \
        || die "cannot download the kernel source and headers $KDEB"
    for d in "$WORK"/kbuild/debs/*.deb; do
        dpkg-deb -x "$d" "$WORK/kbuild/sys"
    done
    SRC=$WORK/kbuild/linux-source-6.1
    HDR=$WORK/kbuild/sys/usr/src/linux-headers-$KVER
    # its Makefile includes the common headers by absolute path; point it at ours
    sed -i "s#/usr/src/linux-headers-$KABI-common#$WORK/kbuild/sys/usr/src/linux-headers-$KABI-common#" "$HDR/Makefile"
    log "unpacking the siw and smb sources"
    tar -C "$WORK/kbuild" -xf "$WORK/kbuild/sys/usr/src/linux-source-6.1.tar.xz" \
        linux-source-6.1/drivers/infiniband/sw/siw linux-source-6.1/fs/smb \
        linux-source-6.1/fs/internal.h linux-source-6.1/scripts/asn1_compiler.c \
        linux-source-6.1/include/linux/asn1.h linux-source-6.1/include/linux/asn1_ber_bytecode.h
    for p in "$LAB"/patches/*.patch; do
        log "applying $(basename "$p")"
        patch -d "$SRC" -p1 --forward --quiet < "$p"
    done
    # The headers package has no scripts/asn1_compiler, and kbuild lists it as a
    # prerequisite of every *.asn1.[ch]: build it from the source into the unpacked kbuild
    # scripts (ours, not the host's), then generate the three SPNEGO parsers.
    gcc -O2 -I"$SRC/include" -o "$HDR/scripts/asn1_compiler" "$SRC/scripts/asn1_compiler.c"
    for a in client/cifs_spnego_negtokeninit server/ksmbd_spnego_negtokeninit server/ksmbd_spnego_negtokentarg; do
        "$HDR/scripts/asn1_compiler" "$SRC/fs/smb/$a.asn1" "$SRC/fs/smb/$a.asn1.c" "$SRC/fs/smb/$a.asn1.h"
    done
    jobs=$(nproc)
    log "building siw.ko"
    make -s -C "$HDR" M="$SRC/drivers/infiniband/sw/siw" -j"$jobs" CONFIG_RDMA_SIW=m modules >&2
    log "building cifs.ko with SMB Direct"
    make -s -C "$HDR" M="$SRC/fs/smb/client" -j"$jobs" CONFIG_CIFS=m CONFIG_CIFS_SMB_DIRECT=y \
        KCFLAGS=-DCONFIG_CIFS_SMB_DIRECT=1 modules >&2
    log "building ksmbd.ko with SMB Direct"
    make -s -C "$HDR" M="$SRC/fs/smb/server" -j"$jobs" CONFIG_SMB_SERVER=m CONFIG_SMB_SERVER_SMBDIRECT=y \
        KCFLAGS=-DCONFIG_SMB_SERVER_SMBDIRECT=1 modules >&2
    mkdir -p "$WORK/kbuild/out"
    cp "$SRC/drivers/infiniband/sw/siw/siw.ko" "$SRC/fs/smb/client/cifs.ko" "$SRC/fs/smb/server/ksmbd.ko" \
        "$WORK/kbuild/out/"
    for m in siw cifs ksmbd; do
        strip --strip-debug "$WORK/kbuild/out/$m.ko"
        modinfo -F vermagic "$WORK/kbuild/out/$m.ko" | grep -q "^$KVER " \
            || die "$m.ko was not built for $KVER"
    done
    grep -q smbd_ "$WORK/kbuild/out/cifs.ko" || die "cifs.ko has no SMB Direct"
    grep -q smb_direct_ "$WORK/kbuild/out/ksmbd.ko" || die "ksmbd.ko has no SMB Direct"
    done_stage modules
fi

# --- stage 2: the root file system ---------------------------------------------------------
if ! stage_done rootfs; then
    rm -rf "$WORK/root"
    log "debootstrap $SUITE (minbase + $PACKAGES,$KPKG)"
    debootstrap --variant=minbase --include="$PACKAGES,$KPKG" "$SUITE" "$WORK/root" "$MIRROR" \
        > "$WORK/debootstrap.log" 2>&1 || { tail -30 "$WORK/debootstrap.log" >&2; die "debootstrap failed"; }
    [ -d "$WORK/root/lib/modules/$KVER" ] || die "the image has no /lib/modules/$KVER"
    done_stage rootfs
fi

# --- stage 3: modules, init, configuration -------------------------------------------------
if ! stage_done config; then
    R=$WORK/root
    mkdir -p "$R/lib/modules/$KVER/updates"
    cp "$WORK"/kbuild/out/*.ko "$R/lib/modules/$KVER/updates/"
    depmod -b "$R" "$KVER"
    install -m 0755 "$LAB/guest/rdmagate-init" "$R/sbin/rdmagate-init"
    echo rdmagate-guest > "$R/etc/hostname"
    printf '127.0.0.1\tlocalhost\n127.0.1.1\trdmagate-guest\n10.0.2.100\trdmagate-host\n' > "$R/etc/hosts"
    printf '/dev/vda / ext4 rw,relatime 0 1\n' > "$R/etc/fstab"
    : > "$R/etc/exports"
    # no services start on their own: rdmagate-init is PID 1 and the job starts what it needs
    rm -f "$R"/etc/machine-id
    : > "$R/etc/machine-id"
    rm -rf "$R"/var/cache/apt/archives/*.deb "$R"/var/lib/apt/lists/*
    done_stage config
fi

# --- stage 4: the disk image, kernel and initrd --------------------------------------------
rm -rf "$WORK/out"
mkdir -p "$WORK/out"
cp "$WORK/root/boot/vmlinuz-$KVER" "$WORK/out/vmlinuz"
cp "$WORK/root/boot/initrd.img-$KVER" "$WORK/out/initrd.img"
echo "$KVER" > "$WORK/out/kernel-release"
truncate -s "$IMAGE_SIZE" "$WORK/out/rootfs.ext4"
log "mkfs.ext4 -d (4 GiB sparse)"
mkfs.ext4 -q -F -L rdmagate-lab -E root_owner=0:0 -d "$WORK/root" "$WORK/out/rootfs.ext4" >&2
{
    echo "hash $HASH"
    echo "kernel $KVER ($KPKG $KDEB)"
    echo "suite $SUITE from $MIRROR"
    echo "packages $PACKAGES"
    echo "updates modules: $(cd "$WORK/kbuild/out" && echo *.ko)"
    echo "built $(date -u +%Y-%m-%dT%H:%M:%SZ) in $(($(date +%s) - start)) s"
} > "$WORK/out/manifest.txt"

rm -rf "$OUT"
mv "$WORK/out" "$OUT"                      # the one step that makes the image visible
rm -rf "$WORK"
rm -f "$CACHE/.lock-$HASH"
log "done in $(($(date +%s) - start)) s: $OUT"
echo "$OUT"
