#!/usr/bin/env bash
# Builds the rdmagate container image, rdmagate:VERSION (VERSION = the reactor pom's version),
# from deploy/Dockerfile with docker or podman, whichever works here.
#
#   deploy/build-image.sh [--local-base] [--engine docker|podman] [--tag NAME:TAG]
#
#   --local-base   build on two base images assembled here instead of eclipse-temurin from a
#                  registry, for hosts that reach no container registry (needs root,
#                  debootstrap and a JDK 25 at $JAVA_HOME or /usr/lib/jvm/temurin-25-jdk-*):
#                    rdmagate-base-jdk:KEY  Debian minbase + this JDK        (build stage)
#                    rdmagate-base-jre:KEY  Debian minbase + a jlink'd runtime (run stage)
#                  The debootstrap root and both images are cached, keyed by their inputs
#                  (suite, mirror, architecture, JDK version, module list, this script), in
#                  $RDMAGATE_IMAGE_CACHE (default /var/cache/rdmagate)/base and the engine's
#                  image store; same inputs, nothing is rebuilt.
#   --engine E     docker or podman (default: docker if `docker info` works, else podman)
#   --tag T        image name (default rdmagate:VERSION)
#
# Environment: RDMAGATE_DEBIAN_MIRROR (default: the Debian mirror apt uses here, else
# deb.debian.org), RDMAGATE_DEBIAN_SUITE (default bookworm), RDMAGATE_IMAGE_CACHE.
# The Maven build inside the image keeps ~/.m2 in a build cache mount, so a rebuild after a
# source change downloads nothing. Each long step prints what it does and how long it took.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
CACHE=${RDMAGATE_IMAGE_CACHE:-/var/cache/rdmagate}
SUITE=${RDMAGATE_DEBIAN_SUITE:-bookworm}

# The run stage's modules when the runtime is jlink'd: `jdeps --print-module-deps` of the
# gateway jar and its lib/ (JDK 25.0.3, gateway 0.1.0-SNAPSHOT). The image build re-runs jdeps on
# the jar it builds and fails, naming the module, when this runtime lacks one, so the list
# cannot silently fall behind the code. Why each is there:
#   java.base         java.lang.foreign (libc *at calls), NIO, crypto (AES-GCM/CBC, HMAC)
#   java.net.http     `rdmagate health` (/health and /metrics themselves are on Netty)
#   jdk.unsupported   Netty (sun.misc.Unsafe); jdk.net: Netty's extended socket options
#   jdk.management    JVM/process metrics (Micrometer); brings java.management
#   jdk.jfr           Micrometer's JFR-backed binders
#   java.sql          H2 (handle stores) and its java.naming/java.desktop (java.beans)
#                     references; java.naming, java.desktop also logback's
#   java.compiler, java.scripting, java.instrument   referenced by H2 and logback
#   java.security.jgss, jdk.security.jgss   Kerberos logons (GSS-API acceptor, its session key)
JLINK_MODULES=java.base,java.compiler,java.desktop,java.instrument,java.naming,java.net.http,java.scripting,java.security.jgss,java.sql,jdk.jfr,jdk.management,jdk.net,jdk.security.jgss,jdk.unsupported

log() { echo "build-image: $*" >&2; }
die() { log "error: $*"; exit 1; }
usage() { sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "${BASH_SOURCE[0]}"; }

# step LABEL CMD...: runs CMD, prints the label before and the time it took after
step() {
    local label=$1 t0=$SECONDS
    shift
    log "$label ..."
    "$@"
    log "$label: done in $((SECONDS - t0)) s"
}

local_base=0
engine=""
tag=""
while [ $# -gt 0 ]; do
    case "$1" in
        --local-base) local_base=1 ;;
        --engine) [ $# -ge 2 ] || die "--engine needs docker or podman"; engine=$2; shift ;;
        --engine=*) engine=${1#--engine=} ;;
        --tag) [ $# -ge 2 ] || die "--tag needs a NAME:TAG"; tag=$2; shift ;;
        --tag=*) tag=${1#--tag=} ;;
        -h|--help) usage; exit 0 ;;
        *) usage >&2; die "unknown argument '$1'" ;;
    esac
    shift
done

VERSION=$(sed -n '/<artifactId>rdmagate-parent<\/artifactId>/{n;s/.*<version>\([^<]*\)<\/version>.*/\1/p;q}' "$ROOT/pom.xml")
[ -n "$VERSION" ] || die "cannot read the project version from $ROOT/pom.xml"
tag=${tag:-rdmagate:$VERSION}

# shellcheck source=SCRIPTDIR/engine.sh
. "$HERE/engine.sh"
rdmagate_engine_select "$engine" check || exit 1
E=$RDMAGATE_ENGINE
log "engine: $RDMAGATE_ENGINE_NOTE"

# --- local base images --------------------------------------------------------------------

# The Debian mirror apt uses on this host for $SUITE (deb822 .sources or one-line .list).
debian_mirror() {
    local f uris
    for f in /etc/apt/sources.list.d/*.sources; do
        [ -f "$f" ] || continue
        uris=$(awk -v s="$SUITE" '
            /^[[:space:]]*$/ { if (u != "" && found) { print u; exit } u = ""; found = 0; next }
            /^URIs:/ { u = $2 }
            /^Suites:/ { for (i = 2; i <= NF; i++) if ($i == s) found = 1 }
            END { if (u != "" && found) print u }' "$f" | head -1)
        [ -z "$uris" ] || { echo "${uris%/}"; return; }
    done
    for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
        [ -f "$f" ] || continue
        uris=$(awk -v s="$SUITE" '$1 == "deb" { i = 2; if ($2 ~ /^\[/) while ($i !~ /\]$/) i++; if ($2 ~ /^\[/) i++; if ($(i + 1) == s) { print $i; exit } }' "$f")
        [ -z "$uris" ] || { echo "${uris%/}"; return; }
    done
    echo http://deb.debian.org/debian
}

# The debootstrap root, shared by both bases: $CACHE/base/rootfs-KEY.
make_rootfs() {
    local dir=$1 work=$1.work
    rm -rf "$work"
    mkdir -p "$work"
    if ! debootstrap --variant=minbase "$SUITE" "$work/root" "$MIRROR" > "$work/debootstrap.log" 2>&1; then
        tail -30 "$work/debootstrap.log" >&2
        die "debootstrap $SUITE from $MIRROR failed (log: $work/debootstrap.log)"
    fi
    # what a container image does not need: package caches, lists, docs, man pages
    rm -rf "$work/root"/var/cache/apt/archives/*.deb "$work/root"/var/lib/apt/lists/* \
        "$work/root"/usr/share/doc/* "$work/root"/usr/share/man/* "$work/root"/usr/share/info/* \
        "$work/root"/var/log/*.log "$work/root"/var/cache/debconf/*-old "$work/root"/tmp/*
    : > "$work/root/etc/resolv.conf"
    echo "debootstrap --variant=minbase $SUITE $MIRROR ($ARCH)" > "$work/root/etc/rdmagate-base"
    mv "$work/root" "$dir"
    rm -rf "$work"
}

# import_base IMAGE JAVA_DIR_FILLER: hard-linked copy of the root + /opt/java/openjdk -> image
import_base() {
    local image=$1 fill=$2 stage
    stage=$(mktemp -d "$CACHE/base/.stage-XXXXXX")
    cp -al "$ROOTFS/." "$stage/"
    mkdir -p "$stage/opt/java"
    "$fill" "$stage/opt/java/openjdk"
    tar --numeric-owner -C "$stage" -cf - . \
        | "$E" import \
            --change "ENV JAVA_HOME=/opt/java/openjdk" \
            --change "ENV PATH=/opt/java/openjdk/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" \
            --change "ENV LANG=C.UTF-8" \
            --change 'CMD ["bash"]' \
            - "$image" > /dev/null
    rm -rf "$stage"
}

# -L: a distribution's JDK may link files out of its tree (Debian's lib/security/cacerts ->
# /etc/ssl/certs/java/cacerts), which would dangle in the image; copy what they point to
fill_jdk() { cp -aL "$JAVA_HOME/." "$1/"; }
fill_jre() {
    "$JAVA_HOME/bin/jlink" --add-modules "$JLINK_MODULES" --output "$1" \
        --strip-debug --no-header-files --no-man-pages --compress=zip-6 --generate-cds-archive > /dev/null
    if [ -L "$1/lib/security/cacerts" ] || [ ! -s "$1/lib/security/cacerts" ]; then
        rm -f "$1/lib/security/cacerts"
        cp -L "$JAVA_HOME/lib/security/cacerts" "$1/lib/security/cacerts"
    fi
}

image_exists() { "$E" image inspect "$1" > /dev/null 2>&1; }

# Earlier keys' roots and base images (another JDK, mirror or script version) are not used
# again by this checkout: remove them so the cache does not grow with every change.
prune_stale() {
    local d img
    for d in "$CACHE"/base/rootfs-*; do
        if [ ! -e "$d" ] || [ "$d" = "$ROOTFS" ]; then continue; fi
        log "removing stale debootstrap root $d"
        rm -rf "$d"
    done
    "$E" images --format '{{.Repository}}:{{.Tag}}' | grep -E '(^|/)rdmagate-base-(jdk|jre):' | sort -u \
        | while read -r img; do
            case "${img#localhost/}" in
                "$BUILD_BASE" | "$RUN_BASE") ;;
                *) log "removing stale base image $img"
                   "$E" rmi "$img" > /dev/null 2>&1 || log "  $img is still used by an image or container; kept" ;;
            esac
        done
}

build_args=()
if [ "$local_base" = 1 ]; then
    [ "$(id -u)" = 0 ] || die "--local-base needs root (debootstrap)"
    for tool in debootstrap tar sha256sum dpkg flock; do
        command -v "$tool" > /dev/null || die "--local-base needs '$tool' (apt-get install -y debootstrap)"
    done
    # shellcheck disable=SC1091
    . "$ROOT/.mvn/select-jdk.sh"
    if [ -z "${JAVA_HOME:-}" ] || [ ! -x "$JAVA_HOME/bin/jlink" ]; then
        die "--local-base needs a JDK 25 (with jlink): set JAVA_HOME"
    fi
    JDK_ID=$(sed -n 's/^IMPLEMENTOR="\(.*\)"/\1/p; s/^JAVA_RUNTIME_VERSION="\(.*\)"/\1/p' "$JAVA_HOME/release" | paste -sd' ')
    major=$(sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$JAVA_HOME/release")
    [ "${major:-0}" -ge 25 ] || die "--local-base needs a JDK 25 or newer; $JAVA_HOME is ${major:-unknown}"
    ARCH=$(dpkg --print-architecture)
    MIRROR=${RDMAGATE_DEBIAN_MIRROR:-$(debian_mirror)}
    SCRIPT_HASH=$(sha256sum "${BASH_SOURCE[0]}" | cut -c1-16)
    key() { printf '%s\n' "$@" | sha256sum | cut -c1-16; }
    ROOTFS_KEY=$(key "$SUITE" "$MIRROR" "$ARCH" "$SCRIPT_HASH")
    JDK_KEY=$(key "$ROOTFS_KEY" "$JDK_ID")
    JRE_KEY=$(key "$ROOTFS_KEY" "$JDK_ID" "$JLINK_MODULES")
    ROOTFS=$CACHE/base/rootfs-$ROOTFS_KEY
    BUILD_BASE=rdmagate-base-jdk:$JDK_KEY
    RUN_BASE=rdmagate-base-jre:$JRE_KEY
    log "local base: Debian $SUITE ($ARCH) from $MIRROR, JDK $JDK_ID at $JAVA_HOME"

    mkdir -p "$CACHE/base"
    exec 9> "$CACHE/base/.lock"
    flock 9   # one builder of the cache at a time
    if [ -d "$ROOTFS" ]; then
        log "debootstrap root: cached ($ROOTFS)"
    else
        step "debootstrap --variant=minbase $SUITE into $ROOTFS (a few minutes)" make_rootfs "$ROOTFS"
    fi
    if image_exists "$BUILD_BASE"; then
        log "build base $BUILD_BASE: cached"
    else
        step "build base $BUILD_BASE: Debian root + the JDK, import into $E" import_base "$BUILD_BASE" fill_jdk
    fi
    if image_exists "$RUN_BASE"; then
        log "run base $RUN_BASE: cached"
    else
        step "run base $RUN_BASE: Debian root + jlink ($JLINK_MODULES), import into $E" \
            import_base "$RUN_BASE" fill_jre
    fi
    prune_stale
    exec 9>&-
    if [ "$E" = podman ]; then
        BUILD_BASE=localhost/$BUILD_BASE
        RUN_BASE=localhost/$RUN_BASE
    fi
    build_args+=(--build-arg "BUILD_BASE=$BUILD_BASE" --build-arg "BASE=$RUN_BASE")
fi

# --- the image ----------------------------------------------------------------------------

build_args+=(--build-arg "VERSION=$VERSION" -f "$HERE/Dockerfile" -t "$tag")
if [ "$E" = podman ]; then
    # docker format: OCI images cannot carry HEALTHCHECK; the ignore file beside the Dockerfile
    # keeps target/ directories and .git out of the context
    build_args+=(--format docker --ignorefile "$HERE/Dockerfile.dockerignore")
    [ "$local_base" = 0 ] || build_args+=(--pull=never)
else
    export DOCKER_BUILDKIT=1   # RUN --mount needs BuildKit; it reads Dockerfile.dockerignore itself
fi
step "image $tag: $E build (Maven builds the gateway inside; the first build downloads its dependencies)" \
    "$E" build "${build_args[@]}" "$ROOT"
# Earlier builds leave untagged images (podman keeps each build stage; a retag orphans the
# previous image). Remove this image's and its build stage's when older than a day; newer
# ones keep serving as the layer cache of the next build.
for title in rdmagate rdmagate-build; do
    "$E" image prune -f --filter "label=org.opencontainers.image.title=$title" --filter until=24h > /dev/null \
        || log "could not prune old untagged $title images (ignored)"
done
log "built $tag. Run it (docs/deploy.md):"
log "  $E run -d --name rdmagate -p 2049:2049 -p 20048:20048 -p 111:111 -p 445:445 -p 9049:9049 \\"
log "    -v /srv/data:/data -v /var/lib/rdmagate:/var/lib/rdmagate $tag"
