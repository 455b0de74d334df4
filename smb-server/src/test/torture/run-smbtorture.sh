#!/usr/bin/env bash
# Runs smbtorture groups against rdmagate's SMB server and against Samba's smbd, both on 127.0.0.1,
# and prints a Markdown table of passed/failed counts per group (for docs/conformance.md).
#
# Usage: smb-server/src/test/torture/run-smbtorture.sh [GROUP...]
# Needs: smbtorture (samba-testsuite), smbd and smbpasswd (samba), Samba's acl_xattr and
# streams_xattr (samba-vfs-modules); run as root (smbd needs it).
# Both servers get a fresh directory (see servers.sh). smb2.notify.tcon is never run (it hangs against any peer).
set -euo pipefail
cd "$(dirname "$0")/../../../.."

groups=("$@")
if [ "${#groups[@]}" -eq 0 ]; then
  groups=(smb2.connect smb2.read smb2.rw smb2.getinfo smb2.setinfo smb2.dir smb2.create smb2.compound smb2.lock
          smb2.session smb2.rename smb2.credits smb2.ioctl smb2.lease smb2.oplock smb2.durable-open
          smb2.multichannel smb2.timestamps smb2.notify-inotify)
  # smb2.notify test by test, without tcon
  while read -r t; do
    groups+=("$t")
  done < <(smbtorture --list smb2.notify 2>/dev/null | grep '^smb2\.notify\.' | grep -v '\.tcon\.' | sed 's/\.[^.]*$//')
fi
per_group_timeout=${TORTURE_TIMEOUT:-180}
work=$(mktemp -d /tmp/rdmagate-torture.XXXXXX)
. smb-server/src/test/torture/servers.sh

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
