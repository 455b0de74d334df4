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
#   lab.sh run --job DIR [--forward PORT]... [--jdk DIR] [--disk FILE] [--timeout S]
#                                     run DIR/job.sh (what the JUnit tests call)
#   lab.sh bench-nfs-rdma [--json FILE] [MIB] [SECONDS] [VERS]
#                                     boot once with rdmagate running in the guest and compare it
#                                     with knfsd over RPC-over-RDMA on the same siw link, through
#                                     the kernel client (job/bench-nfs-rdma.sh); prints a table;
#                                     VERS 3 (default) or 4.1; BENCH_JFR=1 records the gateway
#                                     with JFR (the job directory's rdmagate.jfr; PHASE lines in
#                                     output.log give each dd pass's times to slice it by);
#                                     BENCH_SEQ_WARM_MIB (64) sets the dd warm-up, BENCH_WARM_SECONDS
#                                     (300) the random reads' one (45 s left C2 unfinished under
#                                     TCG: 0.21x knfsd where 300 s gives 0.99x); --json writes
#                                     the figures as bench/run's harnesses do (bench/run chart)
#   lab.sh bench-smb-direct [MIB] [SECONDS]
#                                     boot once and compare rdmagate (in the guest) with ksmbd over
#                                     SMB Direct on the same siw link, and rdmagate's SMB Direct
#                                     with its SMB over TCP, through the kernel cifs client
#                                     (job/bench-smb-direct.sh); prints a table
#   lab.sh soak [MINUTES] [WORKERS] [WARM] [HOST_WORKERS]
#                                     boot once with rdmagate running in the guest and run the
#                                     soak (job/soak.sh): the kernel clients on six mounts (NFSv3
#                                     and NFSv4.1 over TCP and RDMA, cifs over TCP and SMB Direct),
#                                     WORKERS loops each (10) writing and verifying through two
#                                     mounts for MINUTES (30) after a warm-up of WARM (3) that
#                                     sets the baseline; prints the gateway's retained heap, RSS,
#                                     threads and descriptors each minute and the results;
#                                     SOAK_SMALL_EVERY=N in the environment makes the directory
#                                     of small files every Nth round (10); HOST_WORKERS (2) libnfs
#                                     loops and as many smbj workers on the host join through
#                                     qemu's forwards (host-clients.sh); 0 leaves them out
#   lab.sh seeds [DIR]                boot once with rdmagate running in the guest and record what
#                                     the kernel's NFSv3, NFSv4.0/4.1/4.2 and cifs clients send it
#                                     (job/seeds.sh, through a recording proxy) into the fuzz seed
#                                     corpora of the repository DIR (default this one):
#                                     nfs-rdma's seeds/kernel-nfs3 and kernel-nfs4, smb-server's
#                                     seeds/cifs
#   lab.sh clean                      remove cached images other than the current one, and
#                                     leftover work directories (while no build runs)
#
# Output of smoke/peers: a job directory under /tmp (printed) with output.log, console.log.
set -euo pipefail
LAB=$(cd "$(dirname "$0")" && pwd)

[ "$(id -u)" = 0 ] || { echo "lab.sh: the interop lab needs root (debootstrap, image build)" >&2; exit 1; }
command -v qemu-system-x86_64 >/dev/null || { echo "lab.sh: needs qemu-system-x86 (see .ci/run)" >&2; exit 1; }

# bench_job SCRIPT: builds the bench module, the image, and a job directory running SCRIPT with
# the gateway's class path in cp/; sets repo, image and job
bench_job() {
    repo=$(cd "$LAB/../.." && pwd)
    # shellcheck disable=SC1091
    . "$repo/.mvn/select-jdk.sh"
    (cd "$repo" && ./mvnw -q -DskipTests -pl bench -am package) >&2
    image=$("$LAB/build-image.sh")
    job=$(mktemp -d /tmp/rdmagate-lab-bench.XXXXXX)
    prepare "$job"
    cp "$LAB/job/$1" "$job/job.sh"
    mkdir -p "$job/cp"
    tr ':' '\n' < "$repo/bench/target/classpath.txt" | while read -r e; do
        [ -f "$e" ] && cp "$e" "$job/cp/"
    done
}

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
                --forward | --jdk | --disk | --timeout | --console) args+=("$1" "$2"); shift 2 ;;
                *) echo "lab.sh run: unknown argument $1" >&2; exit 2 ;;
            esac
        done
        [ -n "$job" ] && [ -f "$job/job.sh" ] || { echo "lab.sh run: --job DIR with job.sh" >&2; exit 2; }
        image=$("$LAB/build-image.sh")
        prepare "$job"
        exec "$LAB/run-guest.sh" --image "$image" --job "$job" "${args[@]}"
        ;;
    bench-nfs-rdma)
        json=
        if [ "${1:-}" = --json ]; then
            json=$2
            shift 2
        fi
        bench_job bench-nfs-rdma.sh
        printf 'BENCH_MIB=%s\nBENCH_SECONDS=%s\nBENCH_VERS=%s\nBENCH_JFR=%s\nBENCH_SEQ_WARM_MIB=%s\nBENCH_WARM_SECONDS=%s\n' \
            "${1:-256}" "${2:-20}" "${3:-3}" "${BENCH_JFR:-0}" "${BENCH_SEQ_WARM_MIB:-64}" "${BENCH_WARM_SECONDS:-300}" > "$job/env"
        echo "lab.sh: job directory $job" >&2
        set +e
        "$LAB/run-guest.sh" --image "$image" --job "$job" --jdk "$JAVA_HOME" --timeout 3000
        rc=$?
        set -e
        grep -E '^(RESULT|SUMMARY)' "$job/output.log" || true
        awk '$1 == "BENCH" { v[$2 " " $3] = $4; s[$2] = 1; f[$3] = 1 }
            END {
                print ""; print "| figure | knfsd | rdmagate | rdmagate / knfsd |"; print "|---|---:|---:|---:|"
                n = split("write-MBps read-MBps randread-IOPS randread-cpu-us-per-read", order, " ")
                for (i = 1; i <= n; i++) {
                    k = v["knfsd " order[i]]; r = v["rdmagate " order[i]]
                    printf "| %s | %s | %s | %s |\n", order[i], k, r, (k > 0 ? sprintf("%.2f", r / k) : "")
                }
            }' "$job/output.log"
        if [ -n "$json" ]; then
            awk -v vers="${3:-3}" -v date="$(date -u +%FT%TZ)" -f "$LAB/bench-json.awk" "$job/output.log" > "$json"
            echo "lab.sh: figures written to $json" >&2
        fi
        echo "lab.sh: exit $rc; console $job/console.log, output $job/output.log" >&2
        exit $rc
        ;;
    bench-smb-direct)
        bench_job bench-smb-direct.sh
        printf 'BENCH_MIB=%s\nBENCH_SECONDS=%s\nBENCH_WARM_SECONDS=%s\n' "${1:-256}" "${2:-20}" "${BENCH_WARM_SECONDS:-300}" \
            > "$job/env"
        echo "lab.sh: job directory $job" >&2
        set +e
        "$LAB/run-guest.sh" --image "$image" --job "$job" --jdk "$JAVA_HOME" --timeout 3000
        rc=$?
        set -e
        grep -E '^(RESULT|SUMMARY)' "$job/output.log" || true
        awk '$1 == "BENCH" { v[$2 " " $3] = $4 }
            END {
                print ""
                print "| figure | ksmbd SMB Direct | rdmagate SMB Direct | rdmagate / ksmbd | rdmagate TCP | Direct / TCP |"
                print "|---|---:|---:|---:|---:|---:|"
                n = split("write-MBps read-MBps randread-IOPS randread-cpu-us-per-read", order, " ")
                for (i = 1; i <= n; i++) {
                    k = v["ksmbd " order[i]]; r = v["rdmagate " order[i]]; t = v["rdmagate-tcp " order[i]]
                    printf "| %s | %s | %s | %s | %s | %s |\n", order[i], k, r, (k > 0 ? sprintf("%.2f", r / k) : ""),
                        t, (t > 0 ? sprintf("%.2f", r / t) : "")
                }
            }' "$job/output.log"
        echo "lab.sh: exit $rc; console $job/console.log, output $job/output.log" >&2
        exit $rc
        ;;
    soak)
        bench_job soak.sh
        cp "$repo"/bench/target/rdmagate-bench-*.jar "$job/cp/"
        host_workers=${4:-2}
        printf 'SOAK_MINUTES=%s\nSOAK_WORKERS=%s\nSOAK_WARM=%s\nSOAK_SMALL_EVERY=%s\nHOST_WORKERS=%s\n' "${1:-30}" "${2:-10}" \
            "${3:-3}" "${SOAK_SMALL_EVERY:-10}" "$host_workers" > "$job/env"
        expose=() host_pid=
        if [ "$host_workers" -gt 0 ]; then
            free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
            nfs_port=$(free_port) mount_port=$(free_port) smb_port=$(free_port)
            expose=(--expose "2050:$nfs_port" --expose "20058:$mount_port" --expose "445:$smb_port")
            "$LAB/host-clients.sh" "$job" "$nfs_port" "$mount_port" "$smb_port" "$host_workers" \
                "$(ls "$job"/cp/rdmagate-bench-*.jar):$(cat "$repo/bench/target/classpath.txt")" > "$job/host-clients.log" 2>&1 &
            host_pid=$!
        fi
        echo "lab.sh: job directory $job" >&2
        set +e
        "$LAB/run-guest.sh" --image "$image" --job "$job" --jdk "$JAVA_HOME" --timeout $(( ${1:-30} * 60 + 1800 )) \
            "${expose[@]}"
        rc=$?
        set -e
        if [ -n "$host_pid" ]; then              # a guest that stopped early: the host's clients end too
            mkdir -p "$job/host" && touch "$job"/host/{warm,soak}.{go,stop}
            wait "$host_pid" || true
        fi
        grep -E '^(SOAK|WORKER|ERROR|RESULT|SUMMARY)' "$job/output.log" || true
        echo "lab.sh: exit $rc; console $job/console.log, output $job/output.log" >&2
        exit $rc
        ;;
    seeds)
        out=$(cd "${1:-$LAB/../..}" && pwd)
        bench_job seeds.sh
        cp "$repo"/bench/target/rdmagate-bench-*.jar "$job/cp/"   # the recording proxy
        echo "lab.sh: job directory $job" >&2
        set +e
        "$LAB/run-guest.sh" --image "$image" --job "$job" --jdk "$JAVA_HOME" --timeout 2400
        rc=$?
        set -e
        grep -E '^(RESULT|SUMMARY)' "$job/output.log" 2>/dev/null || true
        for c in kernel-nfs3:nfs-rdma kernel-nfs4:nfs-rdma cifs:smb-server; do
            name=${c%%:*} dest="$out/${c#*:}/src/test/resources/seeds/${c%%:*}"
            if [ -s "$job/seeds/$name/index.txt" ]; then
                rm -rf "$dest" && cp -r "$job/seeds/$name" "$dest"
                echo "lab.sh: $dest: $(wc -l < "$dest/index.txt") messages" >&2
            fi
        done
        echo "lab.sh: exit $rc; console $job/console.log, output $job/output.log" >&2
        exit $rc
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
        sed -n '2,48p' "$0" >&2
        exit 2
        ;;
esac
