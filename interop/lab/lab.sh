#!/usr/bin/env bash
# The interop lab by hand (as root). See docs/interop.md.
#
#   lab.sh build                      build the guest image if missing; print its directory
#   lab.sh smoke [--forward PORT]     boot once and run the smoke job (job/smoke.sh); with
#                                     --forward PORT it also GETs /health from the host's
#                                     127.0.0.1:PORT (a running rdmagate) through the forward
#   lab.sh peers                      boot once and run the NFS and SMB workloads against the
#                                     guest's own knfsd and ksmbd (job/peers.sh);
#                                     WORKLOAD_BIG_MIB (default 1024) sizes the large file
#   lab.sh shell [--forward PORT]...  boot with a root shell on this terminal; /job is a
#                                     scratch share, /job/lib.sh has the helpers; exit = power off
#   lab.sh run --job DIR [--forward PORT]... [--jdk DIR] [--timeout S]
#                                     run DIR/job.sh (what the JUnit tests call)
#   lab.sh clean                      remove cached images other than the current one, and
#                                     leftover work directories (while no build runs)
#
# Output of smoke/peers: a job directory under /tmp (printed) with output.log, console.log.
set -euo pipefail
LAB=$(cd "$(dirname "$0")" && pwd)

[ "$(id -u)" = 0 ] || { echo "lab.sh: the interop lab needs root (debootstrap, image build)" >&2; exit 1; }
command -v qemu-system-x86_64 >/dev/null || { echo "lab.sh: needs qemu-system-x86 (see .ci/run)" >&2; exit 1; }

# fill a job directory with the helpers and workloads the guest scripts source
prepare() {
    local dir=$1
    mkdir -p "$dir/workloads"
    cp "$LAB/job/lib.sh" "$dir/lib.sh"
    cp "$LAB"/workloads/*.sh "$dir/workloads/"
    chmod +x "$dir"/workloads/*.sh
}

cmd=${1:-}
[ $# -gt 0 ] && shift
case $cmd in
    build)
        "$LAB/build-image.sh"
        ;;
    smoke | peers)
        image=$("$LAB/build-image.sh")
        job=$(mktemp -d /tmp/rdmagate-lab-$cmd.XXXXXX)
        prepare "$job"
        cp "$LAB/job/$cmd.sh" "$job/job.sh"
        args=()
        if [ "${1:-}" = --forward ]; then
            args+=(--forward "$2")
            echo "HEALTH_PORT=$2" > "$job/env"
        fi
        echo "${WORKLOAD_BIG_MIB:+WORKLOAD_BIG_MIB=$WORKLOAD_BIG_MIB}" >> "$job/env"
        echo "lab.sh: job directory $job" >&2
        set +e
        "$LAB/run-guest.sh" --image "$image" --job "$job" --timeout 1800 "${args[@]}"
        rc=$?
        set -e
        grep -E '^(RESULT|SUMMARY)' "$job/output.log" 2>/dev/null || true
        echo "lab.sh: exit $rc; console $job/console.log, output $job/output.log" >&2
        exit $rc
        ;;
    shell)
        image=$("$LAB/build-image.sh")
        job=$(mktemp -d /tmp/rdmagate-lab-shell.XXXXXX)
        prepare "$job"
        cp "$LAB/job/smoke.sh" "$LAB/job/peers.sh" "$job/"
        args=()
        while [ $# -gt 0 ]; do
            case $1 in
                --forward) args+=(--forward "$2"); shift 2 ;;
                *) echo "lab.sh shell: unknown argument $1" >&2; exit 2 ;;
            esac
        done
        echo "lab.sh: job share $job; Ctrl-a x quits qemu" >&2
        exec "$LAB/run-guest.sh" --image "$image" --job "$job" --shell "${args[@]}"
        ;;
    run)
        job= args=()
        while [ $# -gt 0 ]; do
            case $1 in
                --job) job=$2; shift 2 ;;
                --forward | --jdk | --timeout | --console) args+=("$1" "$2"); shift 2 ;;
                *) echo "lab.sh run: unknown argument $1" >&2; exit 2 ;;
            esac
        done
        [ -n "$job" ] && [ -f "$job/job.sh" ] || { echo "lab.sh run: --job DIR with job.sh" >&2; exit 2; }
        image=$("$LAB/build-image.sh")
        prepare "$job"
        exec "$LAB/run-guest.sh" --image "$image" --job "$job" "${args[@]}"
        ;;
    clean)
        keep=$("$LAB/build-image.sh" --print)
        cache=$(dirname "$keep")
        for d in "$cache"/* "$cache"/.work-* "$cache"/.lock-*; do
            [ -e "$d" ] && [ "$d" != "$keep" ] || continue
            echo "lab.sh: removing $d" >&2
            rm -rf "$d"
        done
        ;;
    *)
        sed -n '2,21p' "$0" >&2
        exit 2
        ;;
esac
