# The file-system workload both client scripts run on a mounted export (sourced).
#
#   fs_workload LABEL MOUNTPOINT CAPS
#
# CAPS is a space-separated list of what the protocol keeps: "mode" (chmod survives),
# "symlink", "hardlink". What the protocol lacks is reported as "RESULT ... PASS not
# supported by this protocol mount" only for absent capabilities, never silently dropped.
# Sizes: WORKLOAD_BIG_MIB (default 1024) for the large file; WORKLOAD_FILES (default 200)
# small files. Local copies live on the guest's disk in /var/tmp/workload.

fs_workload() {
    local label=$1 m=$2 caps=" $3 "
    local big_mib=${WORKLOAD_BIG_MIB:-1024} nfiles=${WORKLOAD_FILES:-200}
    local w=/var/tmp/workload/$label d=$m/wl-$label
    rm -rf "$w" && mkdir -p "$w"
    drop() { sync; echo 3 > /proc/sys/vm/drop_caches; }
    sums() { (cd "$1" && find . -type f -print0 | sort -z | xargs -0 sha256sum); }
    t0() { T0=$(date +%s.%N); }
    dt() { echo "$(date +%s.%N) $T0" | awk '{printf "%.1fs", $1 - $2}'; }

    if ! mkdir -p "$d"; then
        result "$label/mkdir-root" FAIL "cannot create $d"
        return 1
    fi

    # a tree of small files: copy in, copy out, compare checksums. The source tree and the
    # large file are made once per boot (one perl process; spawning is slow under TCG).
    local src=/var/tmp/workload-src-$nfiles-$big_mib
    if [ ! -f "$src/ready" ]; then
        rm -rf "$src" && mkdir -p "$src/tree"
        perl -e 'my ($dir, $n) = @ARGV; open(my $r, "<", "/dev/urandom") or die;
            for my $i (0 .. $n - 1) {
                my $d = sprintf("%s/d%d/e%d", $dir, $i % 10, $i % 3);
                mkdir sprintf("%s/d%d", $dir, $i % 10); mkdir $d;
                read($r, my $buf, ($i * 797) % 9000 + 1);
                open(my $f, ">", "$d/f$i") or die "$d/f$i: $!"; print $f $buf; close $f or die;
            }' "$src/tree" "$nfiles"
        head -c $((big_mib * 1048576)) /dev/urandom > "$src/big"
        sha256sum < "$src/big" | cut -d' ' -f1 > "$src/big.sha256"
        sums "$src/tree" > "$src/tree.sums"
        touch "$src/ready"
    fi
    t0
    if cp -r "$src/tree" "$d/tree" && drop && cp -r "$d/tree" "$w/tree.out" \
        && [ "$(cat "$src/tree.sums")" = "$(sums "$w/tree.out")" ] \
        && [ "$(find "$d/tree" -type f | wc -l)" = "$nfiles" ]; then
        result "$label/small-tree" PASS "$nfiles files in and out in $(dt)"
    else
        result "$label/small-tree" FAIL "checksums or count differ"
    fi

    # one large file: copy in, read back through a cold cache, copy out
    local want got
    want=$(cat "$src/big.sha256")
    t0
    if cp "$src/big" "$d/big" && drop; then
        local tin; tin=$(dt)
        t0
        got=$(sha256sum < "$d/big" | cut -d' ' -f1)
        cp "$d/big" "$w/big.out"
        local out; out=$(sha256sum < "$w/big.out" | cut -d' ' -f1)
        if [ "$want" = "$got" ] && [ "$want" = "$out" ] && [ "$(stat -c %s "$d/big")" = $((big_mib * 1048576)) ]; then
            result "$label/large-file" PASS "${big_mib} MiB: in $tin, back $(dt)"
        else
            result "$label/large-file" FAIL "sha256 local $want, mount $got, copied out $out"
        fi
    else
        result "$label/large-file" FAIL "copy in failed"
    fi
    rm -f "$w/big.out" "$d/big"

    # names: mkdir, rename, unlink, rmdir
    check "$label/namespace" bash -c "
        set -e
        mkdir '$d/ns' '$d/ns/sub'
        echo one > '$d/ns/a'
        mv '$d/ns/a' '$d/ns/b'
        [ ! -e '$d/ns/a' ] && [ \"\$(cat '$d/ns/b')\" = one ]
        mv '$d/ns/b' '$d/ns/sub/c'
        echo two > '$d/ns/d'
        mv -f '$d/ns/d' '$d/ns/sub/c'
        [ \"\$(cat '$d/ns/sub/c')\" = two ]
        mv '$d/ns/sub' '$d/ns/sub2'
        rm '$d/ns/sub2/c'
        rmdir '$d/ns/sub2'
        if rmdir '$d/ns/nonexistent' 2>/dev/null; then exit 1; fi
        touch '$d/ns/keep'
        if rmdir '$d/ns' 2>/dev/null; then exit 1; fi
        rm '$d/ns/keep'
        rmdir '$d/ns'
        [ ! -e '$d/ns' ]"

    # symbolic and hard links
    echo target-data > "$d/link-target"
    if [[ $caps == *" symlink "* ]]; then
        check "$label/symlink" bash -c "
            set -e
            ln -s link-target '$d/sym'
            [ \"\$(readlink '$d/sym')\" = link-target ]
            [ \"\$(cat '$d/sym')\" = target-data ]
            [ -L '$d/sym' ]
            rm '$d/sym'
            [ -e '$d/link-target' ]"
    else
        result "$label/symlink" PASS "not supported by this protocol mount"
    fi
    if [[ $caps == *" hardlink "* ]]; then
        check "$label/hardlink" bash -c "
            set -e
            ln '$d/link-target' '$d/hard'
            [ \"\$(stat -c %h '$d/link-target')\" = 2 ]
            [ \"\$(stat -c %i '$d/link-target')\" = \"\$(stat -c %i '$d/hard')\" ]
            rm '$d/link-target'
            [ \"\$(cat '$d/hard')\" = target-data ]
            [ \"\$(stat -c %h '$d/hard')\" = 1 ]
            rm '$d/hard'"
    else
        result "$label/hardlink" PASS "not supported by this protocol mount"
        rm -f "$d/link-target"
    fi

    # attributes as ls -l shows them: size, mtime, and the mode where the protocol keeps it
    head -c 12345 /dev/urandom > "$d/attr"
    touch -m -d '2021-02-03 04:05:06' "$d/attr"
    local wantmode='-rw-r--r--'
    if [[ $caps == *" mode "* ]]; then
        chmod 0640 "$d/attr"
        wantmode='-rw-r-----'
    fi
    drop
    local ls; ls=$(ls -l --time-style=+%Y-%m-%dT%H:%M:%S "$d/attr")
    if [[ $caps == *" mode "* ]]; then
        [[ $ls == "$wantmode"* ]] || { result "$label/attributes" FAIL "ls -l: $ls (want $wantmode)"; ls=; }
    fi
    if [ -n "$ls" ]; then
        if [[ $ls == *" 12345 2021-02-03T04:05:06 "* ]] && [ "$(ls -1 "$d" | wc -l)" -ge 2 ]; then
            result "$label/attributes" PASS "$ls"
        else
            result "$label/attributes" FAIL "ls -l: $ls"
        fi
    fi
    rm -f "$d/attr"

    # locks from two processes: flock(2) with flock(1), then fcntl(2) F_SETLK
    local lf=$d/lockfile
    : > "$lf"
    rm -f /tmp/lock-held
    (flock -x 9 && touch /tmp/lock-held && sleep 2) 9>>"$lf" &
    local holder=$!
    for i in $(seq 100); do [ -e /tmp/lock-held ] && break; sleep 0.1; done
    local busy=0 free=0
    flock -n -x "$lf" true || busy=1
    wait "$holder"
    flock -n -x "$lf" true && free=1
    if [ -e /tmp/lock-held ] && [ $busy = 1 ] && [ $free = 1 ]; then
        result "$label/flock" PASS "second process refused while held, granted after"
    else
        result "$label/flock" FAIL "held=$([ -e /tmp/lock-held ] && echo 1 || echo 0) refused=$busy granted-after=$free"
    fi
    rm -f /tmp/lock-held
    # fcntl(F_SETLK, F_WRLCK) on the whole file; struct flock on x86_64: short, short, off_t, off_t, pid_t
    local setlk='use Fcntl; open(my $fh, "+<", $ARGV[0]) or die "open: $!";
        my $lk = pack("s s x4 q q i x4", F_WRLCK, 0, 0, 0, 0); fcntl($fh, F_SETLK, $lk) or exit 1;
        if (@ARGV > 1) { open(my $o, ">", $ARGV[1]) or die; close $o; sleep $ARGV[2]; } exit 0;'
    perl -e "$setlk" "$lf" /tmp/lock-held 2 &
    holder=$!
    for i in $(seq 100); do [ -e /tmp/lock-held ] && break; sleep 0.1; done
    busy=0 free=0
    perl -e "$setlk" "$lf" || busy=1
    wait "$holder"
    perl -e "$setlk" "$lf" && free=1
    if [ -e /tmp/lock-held ] && [ $busy = 1 ] && [ $free = 1 ]; then
        result "$label/fcntl-lock" PASS "second process refused while held, granted after"
    else
        result "$label/fcntl-lock" FAIL "held=$([ -e /tmp/lock-held ] && echo 1 || echo 0) refused=$busy granted-after=$free"
    fi
    rm -f /tmp/lock-held "$lf"

    # concurrent writers: four processes rewrite their own 1 MiB region of one file in
    # 256 KiB pieces, interleaved, while four more each write their own file
    head -c $((4 * 1048576)) /dev/urandom > "$w/shared"
    : > "$d/shared"
    local pids=()
    for i in 0 1 2 3; do
        (for k in 0 1 2 3; do
            dd if="$w/shared" of="$d/shared" bs=262144 skip=$((i * 4 + k)) seek=$((i * 4 + k)) count=1 \
                conv=notrunc status=none || exit 1
        done) &
        pids+=($!)
        (head -c 3000000 "$w/shared" > "$d/own-$i") &
        pids+=($!)
    done
    local wfail=0
    for i in "${pids[@]}"; do wait "$i" || wfail=1; done
    drop
    if [ $wfail = 0 ] && cmp -s "$w/shared" "$d/shared" \
        && [ "$(cat "$d"/own-* | sha256sum)" = "$(for i in 0 1 2 3; do head -c 3000000 "$w/shared"; done | sha256sum)" ]; then
        result "$label/concurrent-writers" PASS "4 writers on one file, 4 on their own"
    else
        result "$label/concurrent-writers" FAIL "writer failed=$wfail or contents differ"
    fi

    rm -rf "$d" "$w"
    [ ! -e "$d" ] || result "$label/cleanup" FAIL "$d remains"
}
