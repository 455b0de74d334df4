#!/usr/bin/env bash
# Sequential throughput through one smbclient, against rdmagate and against Samba's smbd on
# 127.0.0.1 (see servers.sh), for docs/benchmarks.md. Not a timed test: numbers depend on the host.
#
# Usage: smb-server/src/test/torture/bench-smbclient.sh [SIZE_MIB] [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/../../../.."
size_mib=${1:-512}
rounds=${2:-3}
work=$(mktemp -d /tmp/rdmagate-bench.XXXXXX)
. smb-server/src/test/torture/servers.sh
head -c "$((size_mib << 20))" /dev/urandom >"$work/src.bin"

mbps() { # seconds -> MB/s
  awk -v s="$1" -v m="$size_mib" 'BEGIN { printf "%.0f", m * 1.048576 / s }'
}

run() { # port user protocol op -> best MB/s over the rounds
  local best=0 t0 t1 s r
  for _ in $(seq 1 "$rounds"); do
    t0=$(date +%s.%N)
    if [ "$4" = put ]; then
      smbclient //127.0.0.1/data -p "$1" -U "$2%$password" -m "$3" -c "put $work/src.bin bench.bin" >/dev/null 2>&1
    else
      smbclient //127.0.0.1/data -p "$1" -U "$2%$password" -m "$3" -c "get bench.bin $work/back.bin" >/dev/null 2>&1
      cmp -s "$work/src.bin" "$work/back.bin"
    fi
    t1=$(date +%s.%N)
    s=$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')
    r=$(mbps "$s")
    [ "$r" -gt "$best" ] && best=$r
  done
  echo "$best"
}

echo "| ${size_mib} MiB through smbclient | rdmagate MB/s | smbd MB/s | ratio |"
echo "|---|---|---|---|"
for proto in SMB3_11; do
  for op in put get; do
    a=$(run "$rd_port" tester "$proto" "$op")
    b=$(run "$samba_port" root "$proto" "$op")
    echo "| $proto $op (sequential $( [ "$op" = put ] && echo write || echo read )) | $a | $b | $(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.2f", a / b }') |"
  done
done
