package io.rdmagate.nfs.v4.op;

import static io.rdmagate.nfs.v4.Nfs4.*;

import io.rdmagate.nfs.NfsExport;
import io.rdmagate.nfs.NfsExports.Target;
import io.rdmagate.nfs.v4.Compound;
import io.rdmagate.nfs.v4.Fattr4;
import io.rdmagate.nfs.v4.Fh4;
import io.rdmagate.nfs.v4.Nfs4Exception;
import io.rdmagate.nfs.v4.Nfs4Op;
import io.rdmagate.nfs.v4.PseudoFs;
import io.rdmagate.oncrpc.xdr.XdrDecoder;
import io.rdmagate.oncrpc.xdr.XdrEncoder;
import io.rdmagate.oncrpc.xdr.XdrException;
import io.rdmagate.vfs.DirectoryEntry;
import io.rdmagate.vfs.DirectoryPage;
import io.rdmagate.vfs.FileAttributes;
import io.rdmagate.vfs.FileType;
import io.rdmagate.vfs.VfsException;
import io.rdmagate.vfs.VirtualFileSystem;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * RFC 8881 §18.23 READDIR: args cookie, cookie verifier, dircount, maxcount, attribute bitmap;
 * resok cookie verifier and entries (cookie, name, fattr4) then eof.
 *
 * <p>No "." or ".." (NFSv4 lists neither). maxcount bounds the whole result (at most the largest
 * READ): each entry is written and taken back when it passes the bound; when not even one fits the
 * answer is NFS4ERR_TOOSMALL. Cookies 1 and 2 are never handed out (§18.23.4); in an export they are
 * the vfs's, which stay valid while the directory changes; in a pseudo directory an entry's cookie is
 * its position plus 3. An entry whose attributes cannot be had carries only rdattr_error when that
 * was asked, else the READDIR fails with the entry's error.
 */
public final class OpReaddir extends Nfs4Op {
    /** The resok's fixed part: cookieverf, the list end marker and eof. */
    private static final int FIXED = 8 + 4 + 4;
    private static final int MAX_ENTRIES = 4096;

    public OpReaddir() {
        super(OP_READDIR, "READDIR");
    }

    private record Entry(long cookie, String name, Fattr4.Source attrs, int error) {
    }

    @Override
    public void run(Compound c) throws Nfs4Exception, XdrException, VfsException {
        XdrDecoder in = c.in();
        long cookie = in.readHyper();
        long verifier = ByteBuffer.wrap(in.readFixedOpaque(NFS4_VERIFIER_SIZE)).getLong();
        in.readInt(); // dircount: a hint
        long maxcount = Math.min(Integer.toUnsignedLong(in.readInt()), c.server().maxIoSize());
        int[] requested = Fattr4.readBitmap(in);
        if (cookie == 1 || cookie == 2) {
            throw new Nfs4Exception(NFS4ERR_BAD_COOKIE, "cookie " + cookie + " is reserved");
        }
        List<Entry> entries = new ArrayList<>();
        boolean eof;
        long pageVerifier;
        switch (c.current()) {
            case Fh4.Pseudo p -> {
                pageVerifier = 0;
                eof = pseudo(c, p.node(), cookie, entries);
            }
            case Fh4.File f -> {
                Target dir = f.target();
                FileType type = dir.fs().getattr(dir.handle()).type();
                if (type != FileType.DIRECTORY) {
                    throw new Nfs4Exception(NFS4ERR_NOTDIR, "READDIR of a " + type);
                }
                if (cookie != 0 && cookie < VirtualFileSystem.FIRST_COOKIE) {
                    throw new Nfs4Exception(NFS4ERR_BAD_COOKIE, "cookie " + cookie + " was never handed out");
                }
                int max = (int) Math.max(1, Math.min(MAX_ENTRIES, maxcount / 16));
                DirectoryPage page = dir.fs().readdir(c.reader(dir), dir.handle(), cookie, cookie == 0 ? 0 : verifier,
                        max, true);
                pageVerifier = page.verifier();
                eof = page.eof();
                for (DirectoryEntry e : page.entries()) {
                    Target t = new Target(dir.export(), e.node().handle());
                    FileAttributes a = e.node().attributes();
                    if (a == null) {
                        try {
                            a = t.fs().getattr(t.handle());
                        } catch (VfsException gone) {
                            entries.add(new Entry(e.cookie(), e.name(), null, io.rdmagate.nfs.v4.Nfs4Errors.of(gone.error())));
                            continue;
                        }
                    }
                    entries.add(new Entry(e.cookie(), e.name(), c.attributes(t, a), NFS4_OK));
                }
            }
        }
        XdrEncoder out = c.out();
        int start = out.position();
        out.writeHyper(pageVerifier);
        int written = 0;
        boolean wantsError = Fattr4.isSet(requested, Fattr4.RDATTR_ERROR);
        for (Entry e : entries) {
            int at = out.position();
            out.writeBool(true);
            out.writeHyper(e.cookie());
            out.writeOpaque(e.name().getBytes(StandardCharsets.UTF_8));
            if (e.attrs() != null) {
                Fattr4.write(out, requested, e.attrs(), c.server());
            } else if (wantsError) {
                Fattr4.writeBitmap(out, Fattr4.bitmap(Fattr4.RDATTR_ERROR));
                out.writeInt(4);
                out.writeInt(e.error());
            } else {
                throw new Nfs4Exception(e.error(), "entry " + e.name() + " is gone");
            }
            if (out.position() - start + FIXED - 8 > maxcount) {
                out.truncate(at);
                break;
            }
            written++;
        }
        if (written == 0 && !entries.isEmpty()) {
            throw new Nfs4Exception(NFS4ERR_TOOSMALL, "maxcount " + maxcount + " holds no entry");
        }
        out.writeBool(false);
        out.writeBool(written == entries.size() && eof);
    }

    /** The pseudo directory's entries after {@code cookie}: its directories, and the exports the caller may see. */
    private static boolean pseudo(Compound c, PseudoFs.Node dir, long cookie, List<Entry> out) throws VfsException {
        long k = 3;
        for (Map.Entry<String, Object> child : dir.children().entrySet()) {
            long entryCookie = k++;
            if (entryCookie <= cookie) {
                continue;
            }
            Fattr4.Source attrs;
            if (child.getValue() instanceof PseudoFs.Node n) {
                attrs = c.attributes(new Fh4.Pseudo(n));
            } else {
                NfsExport e = (NfsExport) child.getValue();
                if (!c.visible(e)) {
                    continue;
                }
                Target root = new Target(e, e.fs().root());
                attrs = c.attributes(root, root.fs().getattr(root.handle()));
            }
            out.add(new Entry(entryCookie, child.getKey(), attrs, NFS4_OK));
        }
        return true;
    }
}
