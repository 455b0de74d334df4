#!/usr/bin/env bash
# NFSv4.2's features as a Linux program on the kernel client meets them, on a mounted directory.
#
#   nfs42-features.sh LABEL NFS_DIR [METRICS_URL]      (sourced functions: nfs42_features LABEL DIR URL)
#
# sparse: lseek SEEK_DATA/SEEK_HOLE find a file's data and holes (SEEK); punch-hole: fallocate -p
# frees a range that then reads as zeroes (DEALLOCATE); allocate: fallocate reserves and grows
# (ALLOCATE); copy-range: copy_file_range copies 8 MiB inside the server (COPY), counted by the
# gateway's rdmagate_nfs4_server_side_copy_bytes_total, not sent over the wire; cp-reflink: cp
# --reflink=auto copies correctly whether or not the backend clones (CLONE, else COPY); user-xattrs:
# setfattr/getfattr's calls (SETXATTR, GETXATTR, LISTXATTRS, REMOVEXATTR) with their errors, and a
# file left with user.origin for the host to find; nfs4-acl: the system.nfs4_acl the kernel client
# shows is the mode's (OWNER@, GROUP@, EVERYONE@), and setting one sets the mode (the acl attribute,
# an NFSv4.1 one; the host checks the file's mode). One "RESULT LABEL/check" line per check.
nfs42_features() {                          # nfs42_features LABEL DIR METRICS_URL
    local label=$1 dir=$2 url=${3:-} line name verdict detail
    while IFS='|' read -r name verdict detail; do
        result "$label/$name" "$verdict" "$detail"
    done < <(python3 - "$dir" "$label" "$url" <<'PY' 2>&1 | grep -E '^[a-z0-9-]+\|(PASS|FAIL)\|'
import errno, fcntl, hashlib, os, sys, urllib.request

d, label, url = sys.argv[1], sys.argv[2], sys.argv[3]
SEG = 64 * 1024

def report(name, ok, detail=""):
    print(f"{name}|{'PASS' if ok else 'FAIL'}|{detail}", flush=True)

def run(name, fn):
    try:
        ok, detail = fn()
    except Exception as e:  # a failed call is a failed check, with the call's error
        ok, detail = False, f"{type(e).__name__}: {e}"
    report(name, ok, detail)

def copied():
    if not url:
        return None
    with urllib.request.urlopen(url, timeout=30) as r:
        for l in r.read().decode().splitlines():
            if l.startswith("rdmagate_nfs4_server_side_copy_bytes_total{") and 'op="COPY"' in l:
                return float(l.split()[-1])
    return 0.0

def sparse():
    p = f"{d}/sparse-{label}.bin"
    fd = os.open(p, os.O_CREAT | os.O_TRUNC | os.O_RDWR, 0o644)
    try:
        os.pwrite(fd, b"a" * SEG, 0)
        os.pwrite(fd, b"z" * SEG, 16 * SEG)
        os.ftruncate(fd, 32 * SEG)
        os.fsync(fd)
        got = [os.lseek(fd, 0, os.SEEK_DATA), os.lseek(fd, 0, os.SEEK_HOLE), os.lseek(fd, SEG, os.SEEK_DATA),
               os.lseek(fd, 16 * SEG, os.SEEK_HOLE)]
        try:
            os.lseek(fd, 17 * SEG, os.SEEK_DATA)
            tail = "data"
        except OSError as e:
            tail = errno.errorcode.get(e.errno, str(e.errno))
    finally:
        os.close(fd)
    want = [0, SEG, 16 * SEG, 17 * SEG]
    return got == want and tail == "ENXIO", f"data/hole offsets {got} (want {want}), past the last data: {tail}"

def punch():
    p = f"{d}/sparse-{label}.bin"
    before = os.stat(p).st_blocks
    rc = os.system(f"fallocate -p -o {16 * SEG} -l {SEG} {p}")
    fd = os.open(p, os.O_RDONLY)
    try:
        zero = os.pread(fd, SEG, 16 * SEG) == bytes(SEG)
        try:
            os.lseek(fd, SEG, os.SEEK_DATA)
            hole = False
        except OSError as e:
            hole = e.errno == errno.ENXIO
    finally:
        os.close(fd)
    st = os.stat(p)
    return (rc == 0 and zero and hole and st.st_size == 32 * SEG,
            f"fallocate -p rc {rc}, zeroes {zero}, a hole to the end {hole}, size {st.st_size}, "
            f"blocks {before} -> {st.st_blocks}")

def allocate():
    p = f"{d}/prealloc-{label}.bin"
    rc = os.system(f"fallocate -l {3 << 20} {p}")
    st = os.stat(p)
    return (rc == 0 and st.st_size == 3 << 20 and st.st_blocks * 512 >= 3 << 20,
            f"fallocate rc {rc}, size {st.st_size}, {st.st_blocks * 512} bytes reserved")

def copy_range():
    src, dst = f"{d}/copy-src-{label}.bin", f"{d}/copy-dst-{label}.bin"
    data = os.urandom(8 << 20)
    with open(src, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    before = copied()
    fi = os.open(src, os.O_RDONLY)
    fo = os.open(dst, os.O_CREAT | os.O_TRUNC | os.O_WRONLY, 0o644)
    done = 0
    try:
        while done < len(data):
            n = os.copy_file_range(fi, fo, len(data) - done, done, done)
            if n == 0:
                break
            done += n
        os.fsync(fo)
    finally:
        os.close(fi)
        os.close(fo)
    after = copied()
    with open(dst, "rb") as f:
        same = hashlib.sha256(f.read()).digest() == hashlib.sha256(data).digest()
    inside = before is None or after - before >= len(data)
    return same and done == len(data) and inside, (f"{done} bytes, same content {same}, "
                                                   f"server-side copy bytes {before} -> {after}")

def cp_reflink():
    src, dst = f"{d}/copy-src-{label}.bin", f"{d}/cp-reflink-{label}.bin"
    before = copied()
    rc = os.system(f"cp --reflink=auto {src} {dst}")
    same = rc == 0 and open(src, "rb").read() == open(dst, "rb").read()
    return same, f"cp rc {rc}, same content {same}, server-side copy bytes {before} -> {copied()}"

def clone():
    src, dst = f"{d}/copy-src-{label}.bin", f"{d}/clone-{label}.bin"
    fi = os.open(src, os.O_RDONLY)
    fo = os.open(dst, os.O_CREAT | os.O_TRUNC | os.O_WRONLY, 0o644)
    try:
        fcntl.ioctl(fo, 0x40049409, fi)  # FICLONE
        result = "cloned"
    except OSError as e:
        result = "EOPNOTSUPP" if e.errno == errno.EOPNOTSUPP else errno.errorcode.get(e.errno, str(e.errno))
    finally:
        os.close(fi)
        os.close(fo)
    if result == "cloned":
        same = open(src, "rb").read() == open(dst, "rb").read()
        return same, f"FICLONE shared the blocks, same content {same}"
    return result == "EOPNOTSUPP", f"FICLONE: {result} (the backend cannot clone; cp falls back to a copy)"

def xattrs():
    p = f"{d}/xattr-{label}.txt"
    with open(p, "w") as f:
        f.write("tagged\n")
    os.setxattr(p, "user.color", b"blue", os.XATTR_CREATE)
    steps = [os.getxattr(p, "user.color") == b"blue", "user.color" in os.listxattr(p)]
    try:
        os.setxattr(p, "user.color", b"red", os.XATTR_CREATE)
        steps.append(False)
    except OSError as e:
        steps.append(e.errno == errno.EEXIST)
    os.setxattr(p, "user.color", b"red", os.XATTR_REPLACE)
    steps.append(os.getxattr(p, "user.color") == b"red")
    big = os.urandom(2000)  # what fits beside the inode on an ext4 backend
    os.setxattr(p, "user.big", big)
    steps.append(os.getxattr(p, "user.big") == big)
    os.removexattr(p, "user.color")
    try:
        os.getxattr(p, "user.color")
        steps.append(False)
    except OSError as e:
        steps.append(e.errno == errno.ENODATA)
    os.setxattr(p, "user.origin", f"guest-{label}".encode())
    return all(steps), f"create, get, list, EEXIST, replace, 2000-byte value, remove, ENODATA: {steps}"

def nfs4_acl():
    import struct
    p = f"{d}/acl-{label}.txt"
    with open(p, "w") as f:
        f.write("acl\n")
    os.chmod(p, 0o604)
    def read_acl():
        raw = os.getxattr(p, "system.nfs4_acl")
        n, at, aces = struct.unpack_from(">I", raw, 0)[0], 4, []
        for _ in range(n):
            t, fl, m, ln = struct.unpack_from(">IIII", raw, at)
            who = raw[at + 16:at + 16 + ln].decode()
            at += 16 + (ln + 3) // 4 * 4
            aces.append(("allow" if t == 0 else "deny") + f" {who} " + ("r" if m & 1 else "-")
                        + ("w" if m & 2 else "-") + ("x" if m & 0x20 else "-"))
        return aces
    aces = read_acl()
    want = ["allow OWNER@ rw-", "allow GROUP@ ---", "deny GROUP@ r--", "allow EVERYONE@ r--"]
    def ace(t, flags, mask, who):
        w = who.encode()
        return struct.pack(">IIII", t, flags, mask, len(w)) + w + bytes((4 - len(w) % 4) % 4)
    acl = struct.pack(">I", 3) + ace(0, 0, 0x1 | 0x2 | 0x4 | 0x20, "OWNER@") + ace(0, 0x40, 0x1 | 0x20, "GROUP@") \
        + ace(1, 0, 0x1 | 0x2 | 0x4 | 0x20, "EVERYONE@")
    os.setxattr(p, "system.nfs4_acl", acl)
    after = read_acl()  # setting it dropped the client's ACL cache: this is the server's answer
    want_after = ["allow OWNER@ rwx", "allow GROUP@ r-x", "allow EVERYONE@ ---"]
    return aces == want and after == want_after, f"mode 0604 reads as {aces}; after setting one of 0750: {after}"

run("sparse", sparse)
run("punch-hole", punch)
run("allocate", allocate)
run("copy-range", copy_range)
run("cp-reflink", cp_reflink)
run("clone", clone)
run("user-xattrs", xattrs)
run("nfs4-acl", nfs4_acl)
PY
)
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    set -uo pipefail
    here=$(cd "$(dirname "$0")" && pwd)
    . "${LAB_LIB:-$here/../lib.sh}"
    nfs42_features "$1" "$2" "${3:-}"
    lab_summary
fi
