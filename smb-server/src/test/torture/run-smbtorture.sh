#!/usr/bin/env bash
# Runs smbtorture groups against rdmagate's SMB server and against Samba's smbd, both on 127.0.0.1,
# and prints a Markdown table of passed/failed counts per group (for docs/conformance.md).
#
# Usage: smb-server/src/test/torture/run-smbtorture.sh [GROUP...]
# Needs: smbtorture (samba-testsuite), smbd and smbpasswd (samba); run as root (smbd needs it).
# Both servers get a fresh directory; smbd is started with a configuration written here, as root's
# Samba account with the same password. smb2.notify.tcon is never run (it hangs against any peer).
set -euo pipefail
cd "$(dirname "$0")/../../../.."

groups=("$@")
if [ "${#groups[@]}" -eq 0 ]; then
  groups=(smb2.connect smb2.read smb2.rw smb2.getinfo smb2.setinfo smb2.dir smb2.create smb2.compound smb2.lock
          smb2.session smb2.rename smb2.credits smb2.ioctl smb2.lease smb2.oplock smb2.durable-open)
fi
per_group_timeout=${TORTURE_TIMEOUT:-180}
work=$(mktemp -d /tmp/rdmagate-torture.XXXXXX)
rd_port=${RD_PORT:-10545}
samba_port=${SAMBA_PORT:-10546}
password=Secret-123

# with -am every module writes the file; smb-server, last in the reactor, writes it last
./mvnw -q -o -pl smb-server -am test-compile dependency:build-classpath -Dmdep.outputFile="$work/cp" \
  -Dmdep.includeScope=test >/dev/null
cp="smb-server/target/test-classes:smb-server/target/classes:$(cat "$work/cp")"

mkdir -p "$work/rd" "$work/rdstate" "$work/samba"/{share,priv,lock,state,cache,pid,log}
"${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin/java" --enable-native-access=ALL-UNNAMED -cp "$cp" io.rdmagate.smb.server.TortureServer "$work/rd" "$work/rdstate" "$rd_port" \
  >"$work/rdmagate.log" 2>&1 &
rd_pid=$!
cat >"$work/samba/smb.conf" <<CONF
[global]
  server role = standalone server
  workgroup = WORKGROUP
  interfaces = 127.0.0.1
  bind interfaces only = yes
  smb ports = $samba_port
  disable netbios = yes
  private dir = $work/samba/priv
  lock directory = $work/samba/lock
  state directory = $work/samba/state
  cache directory = $work/samba/cache
  pid directory = $work/samba/pid
  log file = $work/samba/log/smbd.log
  passdb backend = tdbsam:$work/samba/priv/passdb.tdb
  server min protocol = SMB2_02
[data]
  path = $work/samba/share
  read only = no
CONF
printf '%s\n%s\n' "$password" "$password" | smbpasswd -c "$work/samba/smb.conf" -a -s root >/dev/null
smbd -s "$work/samba/smb.conf" -F --no-process-group </dev/null >"$work/samba/log/stdout" 2>&1 &
samba_pid=$!
trap 'kill $rd_pid $samba_pid 2>/dev/null || true' EXIT
for _ in $(seq 1 60); do
  grep -q ready "$work/rdmagate.log" 2>/dev/null && (echo >/dev/tcp/127.0.0.1/$samba_port) 2>/dev/null && break
  sleep 1
done

run() { # server-port user group -> "passed failed"
  local out
  out=$(timeout "$per_group_timeout" smbtorture "//127.0.0.1/data" -p "$1" -U "$2%$password" \
          --option=torture:sharedelay=100000 "$3" 2>&1 || true)
  echo "$out" >>"$work/torture-$1.log"
  printf '%s %s\n' "$(grep -c '^success: ' <<<"$out" || true)" "$(grep -cE '^(failure|error): ' <<<"$out" || true)"
}

echo "| group | rdmagate passed | rdmagate failed | smbd passed | smbd failed |"
echo "|---|---|---|---|---|"
for g in "${groups[@]}"; do
  read -r rp rf < <(run "$rd_port" tester "$g")
  read -r sp sf < <(run "$samba_port" root "$g")
  echo "| $g | $rp | $rf | $sp | $sf |"
done
echo
echo "logs: $work"
