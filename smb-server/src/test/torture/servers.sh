# Sourced by run-smbtorture.sh and bench-smbclient.sh: starts rdmagate's SMB server (the test
# server of smb-server, share "data", user tester) and Samba's smbd (share "data", user root) on
# 127.0.0.1, with the same password, each over a fresh directory under $work.
# Sets rd_port, samba_port, password, rd_pid, samba_pid; stops both on exit.
rd_port=${RD_PORT:-10545}
samba_port=${SAMBA_PORT:-10546}
password=Secret-123
# Samba is configured as a Windows-heavy site runs it (acl_xattr, streams_xattr): without those
# modules its share does not start and every Samba count would read as a failure
for m in acl_xattr streams_xattr; do
  if ! ls /usr/lib/*/samba/vfs/$m.so >/dev/null 2>&1; then
    echo "servers.sh: Samba's vfs module $m is missing: apt-get install samba-vfs-modules" >&2
    exit 1
  fi
done

# with -am every module writes the file; smb-server, last in the reactor, writes it last
./mvnw -q -o -pl smb-server -am test-compile dependency:build-classpath -Dmdep.outputFile="$work/cp" \
  -Dmdep.includeScope=test >/dev/null
cp="smb-server/target/test-classes:smb-server/target/classes:$(cat "$work/cp")"

mkdir -p "$work/rd" "$work/rdstate" "$work/samba"/{share,priv,lock,state,cache,pid,log}
"${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin/java" --enable-native-access=ALL-UNNAMED -cp "$cp" \
  io.rdmagate.smb.server.TortureServer "$work/rd" "$work/rdstate" "$rd_port" >"$work/rdmagate.log" 2>&1 &
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
  # what Windows clients rely on, so that a test both servers fail means "not served by either"
  vfs objects = acl_xattr streams_xattr
  ea support = yes
  store dos attributes = yes
CONF
printf '%s\n%s\n' "$password" "$password" | smbpasswd -c "$work/samba/smb.conf" -a -s root >/dev/null
smbd -s "$work/samba/smb.conf" -F --no-process-group </dev/null >"$work/samba/log/stdout" 2>&1 &
samba_pid=$!
trap 'kill $rd_pid $samba_pid 2>/dev/null || true' EXIT
for _ in $(seq 1 60); do
  grep -q ready "$work/rdmagate.log" 2>/dev/null && (echo >/dev/tcp/127.0.0.1/$samba_port) 2>/dev/null && break
  sleep 1
done
if ! grep -q "ready $rd_port" "$work/rdmagate.log" || ! (echo >/dev/tcp/127.0.0.1/$samba_port) 2>/dev/null; then
  echo "a server did not start (is a previous run still listening on $rd_port or $samba_port?); logs in $work" >&2
  exit 1
fi
