#!/usr/bin/env bash
# Picks the container engine that works on this host, docker or podman, and applies the
# settings rootful podman needs on hosts like our build machines.
#
#   deploy/engine.sh [--engine docker|podman] ARGS...    run `ENGINE ARGS...`
#   deploy/engine.sh --which                             print the engine it would use
#   . deploy/engine.sh                                   (from a script) then:
#       rdmagate_engine_select [docker|podman] [check]   sets RDMAGATE_ENGINE; with check,
#                                                        also that `podman info` works
#
# Without --engine (or $RDMAGATE_ENGINE): docker when `docker info` succeeds (a docker CLI
# with no reachable daemon does not count), else podman.
#
# Podman fixes, applied only when the host needs them and $CONTAINERS_CONF is not already
# set (an operator's own file always wins):
#   - cgroup v1 or hybrid hierarchy (no cgroup2 at /sys/fs/cgroup): crun, Debian's default
#     runtime, fails there with "cgroups in hybrid mode"; runc works.
#   - no CAP_SYS_RESOURCE (a sandbox, a nested container): the packaged default ulimits
#     (nofile above the hard limit) cannot be set; default_ulimits = [] keeps the caller's.
# They are written to $RDMAGATE_IMAGE_CACHE/podman/containers.conf (default
# /var/cache/rdmagate) and passed as CONTAINERS_CONF, so /etc is never edited.

rdmagate_engine_die() {
    echo "rdmagate engine: $*" >&2
    return 1
}

rdmagate_podman_compat() {
    [ -z "${CONTAINERS_CONF:-}" ] || return 0
    local conf runtime="" no_ulimits="" capeff
    if [ "$(stat -fc %T /sys/fs/cgroup 2>/dev/null)" != cgroup2fs ]; then
        command -v runc >/dev/null \
            || rdmagate_engine_die "this host has cgroup v1/hybrid, where podman's crun fails; install runc (apt-get install -y runc)" \
            || return 1
        runtime=runc
    fi
    capeff=$(sed -n 's/^CapEff:[[:space:]]*//p' /proc/self/status)
    if [ -n "$capeff" ] && (( ((16#$capeff) >> 24 & 1) == 0 )); then
        no_ulimits=1
    fi
    [ -n "$runtime$no_ulimits" ] || return 0
    conf=${RDMAGATE_IMAGE_CACHE:-/var/cache/rdmagate}/podman/containers.conf
    mkdir -p "$(dirname "$conf")"
    {
        echo "# written by deploy/engine.sh for this host; see the comment at its top"
        echo "[containers]"
        [ -z "$no_ulimits" ] || echo "default_ulimits = []"
        echo "[engine]"
        [ -z "$runtime" ] || echo "runtime = \"$runtime\""
    } > "$conf.tmp"
    mv "$conf.tmp" "$conf"
    export CONTAINERS_CONF=$conf
    RDMAGATE_ENGINE_NOTE="podman with CONTAINERS_CONF=$conf (${runtime:+runtime $runtime}${runtime:+${no_ulimits:+, }}${no_ulimits:+no default ulimits})"
}

rdmagate_engine_select() {
    local want=${1:-${RDMAGATE_ENGINE:-}} check=${2:-}
    RDMAGATE_ENGINE_NOTE=""
    case "$want" in
        docker)
            command -v docker >/dev/null || { rdmagate_engine_die "docker is not installed"; return 1; }
            docker info >/dev/null 2>&1 \
                || { rdmagate_engine_die "'docker info' fails: no docker daemon is reachable (try --engine podman)"; return 1; }
            ;;
        podman)
            command -v podman >/dev/null \
                || { rdmagate_engine_die "podman is not installed (apt-get install -y podman runc uidmap slirp4netns)"; return 1; }
            ;;
        "")
            if command -v docker >/dev/null && docker info >/dev/null 2>&1; then
                want=docker
            elif command -v podman >/dev/null; then
                want=podman
            else
                rdmagate_engine_die "no container engine: neither a working docker (docker info) nor podman"
                return 1
            fi
            ;;
        *)
            rdmagate_engine_die "unknown engine '$want' (docker or podman)"
            return 1
            ;;
    esac
    if [ "$want" = podman ]; then
        rdmagate_podman_compat || return 1
        [ "$check" = check ] || { RDMAGATE_ENGINE=podman; export RDMAGATE_ENGINE; return 0; }
        podman info >/dev/null 2>&1 || {
            podman info 2>&1 | tail -5 >&2
            rdmagate_engine_die "'podman info' fails (above)"
            return 1
        }
    fi
    RDMAGATE_ENGINE=$want
    [ -n "$RDMAGATE_ENGINE_NOTE" ] || RDMAGATE_ENGINE_NOTE=$want
    export RDMAGATE_ENGINE
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    set -euo pipefail
    engine=""
    if [ "${1:-}" = --engine ]; then
        [ $# -ge 2 ] || rdmagate_engine_die "--engine needs docker or podman"
        engine=$2
        shift 2
    fi
    rdmagate_engine_select "$engine"
    if [ "${1:-}" = --which ]; then
        echo "$RDMAGATE_ENGINE"
        exit 0
    fi
    exec "$RDMAGATE_ENGINE" "$@"
fi
