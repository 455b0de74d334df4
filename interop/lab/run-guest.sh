#!/usr/bin/env bash
# Boots the interop guest once: runs JOB_DIR/job.sh inside it and returns the job's exit status.
#
#   run-guest.sh --image DIR --job JOB_DIR [--forward PORT|GUEST:HOST]... [--expose GUEST:HOST]... [--jdk JDK_HOME]
#                [--disk FILE] [--timeout SECONDS] [--console FILE] [--shell]
#
# --image    an image directory from build-image.sh (rootfs.ext4, vmlinuz, initrd.img)
# --job      a host directory shared into the guest by 9p (tag "job", mounted at /job). The
#            guest runs /job/job.sh, writes its output to /job/output.log and its exit
#            status to /job/exit-code, then powers off. Put results in /job as files.
# --forward  makes 10.0.2.100:PORT in the guest reach 127.0.0.1:PORT on the host: qemu user
#            networking with restrict=on (the guest reaches nothing else) and one guestfwd
#            per port, each guest connection relayed by its own `socat - TCP:127.0.0.1:PORT`.
#            As root the relay connects from a reserved port (socat's lowport), as the guest's
#            kernel NFS client does, so the gateway's secure client rules let it in.
#            GUEST:HOST makes 10.0.2.100:GUEST reach 127.0.0.1:HOST (a well-known port such
#            as rpcbind's 111 in the guest, served by a free port on the host).
# --expose   the other way: 127.0.0.1:HOST on the host reaches the guest's GUEST port (qemu's
#            hostfwd to 10.0.2.15; the job brings its NIC up with net_up). For host clients of a
#            server running in the guest.
#            Without --forward or --expose the guest has no network card at all (-nic none).
# --jdk      shares a JDK read-only (tag "jdk"); the guest mounts it at /opt/jdk.
# --disk     a raw disk image the guest sees as /dev/vdb, written in place (qemu's write-back
#            cache: what the guest flushes is in FILE when qemu ends, what it did not may not be).
# --timeout  hard limit for the whole boot (default 600 s); the job gets 30 s less.
# --console  where the serial console goes (default JOB_DIR/console.log)
# --shell    interactive: a root shell on this terminal instead of job.sh (exit powers off)
#
# Exit status: the job's; 124 when the boot hit the timeout; 125 when the guest stopped
# without reporting one (see the console log).
set -euo pipefail

image= job= jdk= disk= console= shell=0 timeout=600
forwards=()
exposes=()
while [ $# -gt 0 ]; do
    case $1 in
        --image) image=$2; shift 2 ;;
        --job) job=$2; shift 2 ;;
        --forward) forwards+=("$2"); shift 2 ;;
        --expose) exposes+=("$2"); shift 2 ;;
        --jdk) jdk=$2; shift 2 ;;
        --disk) disk=$2; shift 2 ;;
        --timeout) timeout=$2; shift 2 ;;
        --console) console=$2; shift 2 ;;
        --shell) shell=1; shift ;;
        *) echo "run-guest: unknown argument $1" >&2; exit 2 ;;
    esac
done
[ -n "$image" ] && [ -f "$image/rootfs.ext4" ] || { echo "run-guest: --image DIR with rootfs.ext4 needed" >&2; exit 2; }
[ -n "$job" ] && [ -d "$job" ] || { echo "run-guest: --job DIR needed" >&2; exit 2; }
job=$(cd "$job" && pwd)
console=${console:-$job/console.log}
rm -f "$job/exit-code"

net=(-nic none)
if [ "${#forwards[@]}" -gt 0 ] || [ "${#exposes[@]}" -gt 0 ]; then
    spec=user,id=n0,restrict=on,net=10.0.2.0/24,host=10.0.2.2
    low=""
    [ "$(id -u)" -eq 0 ] && low=",,lowport" # ",," is a comma inside a qemu option
    for p in "${forwards[@]}"; do
        command -v socat >/dev/null || { echo "run-guest: --forward needs socat on the host" >&2; exit 2; }
        [[ $p =~ ^([0-9]+)(:([0-9]+))?$ ]] || { echo "run-guest: bad port $p" >&2; exit 2; }
        guest=${BASH_REMATCH[1]} host=${BASH_REMATCH[3]:-${BASH_REMATCH[1]}}
        spec+=",guestfwd=tcp:10.0.2.100:$guest-cmd:socat - TCP:127.0.0.1:$host$low"
    done
    for p in "${exposes[@]}"; do
        [[ $p =~ ^([0-9]+):([0-9]+)$ ]] || { echo "run-guest: bad --expose $p (GUEST:HOST)" >&2; exit 2; }
        spec+=",hostfwd=tcp:127.0.0.1:${BASH_REMATCH[2]}-10.0.2.15:${BASH_REMATCH[1]}"
    done
    net=(-netdev "$spec" -device virtio-net-pci,netdev=n0)
fi

fs=(-virtfs "local,path=$job,mount_tag=job,security_model=none,id=job")
if [ -n "$jdk" ]; then
    fs+=(-virtfs "local,path=$jdk,mount_tag=jdk,security_model=none,readonly=on,id=jdk")
fi

append="console=ttyS0 root=/dev/vda rw init=/sbin/rdmagate-init panic=-1 rdmagate.timeout=$((timeout > 60 ? timeout - 30 : timeout))"
if [ "$shell" = 1 ]; then
    append+=" rdmagate.shell=1"
    serial=(-serial mon:stdio)
else
    serial=(-serial "file:$console")
fi

qemu=(qemu-system-x86_64 -accel tcg -cpu max -smp 2 -m 4G -nodefaults -no-reboot -display none
    -kernel "$image/vmlinuz" -initrd "$image/initrd.img" -append "$append"
    -drive "file=$image/rootfs.ext4,format=raw,if=virtio,snapshot=on"
    ${disk:+-drive "file=$disk,format=raw,if=virtio,cache=writeback"}
    "${fs[@]}" "${net[@]}" "${serial[@]}")

if [ "$shell" = 1 ]; then
    exec "${qemu[@]}"
fi

set +e
timeout -k 10 "$timeout" "${qemu[@]}" </dev/null
qrc=$?
set -e
if [ -f "$job/exit-code" ]; then
    exit "$(cat "$job/exit-code")"
fi
if [ "$qrc" = 124 ] || [ "$qrc" = 137 ]; then
    echo "run-guest: the guest ran out of time (${timeout}s); console: $console" >&2
    exit 124
fi
echo "run-guest: the guest stopped (qemu status $qrc) without a job exit code; console: $console" >&2
exit 125
