package io.rdmagate.nfs.v4.op;

import static io.rdmagate.nfs.v4.Nfs4.*;

import io.rdmagate.nfs.v4.Compound;
import io.rdmagate.nfs.v4.Fh4;
import io.rdmagate.nfs.v4.Nfs4Exception;
import io.rdmagate.nfs.v4.Nfs4Op;
import io.rdmagate.oncrpc.xdr.XdrDecoder;
import io.rdmagate.oncrpc.xdr.XdrEncoder;
import io.rdmagate.oncrpc.xdr.XdrException;
import io.rdmagate.vfs.VfsException;
import io.rdmagate.vfs.state.Conflict;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * RFC 8276 §8.4.3 LISTXATTRS: args cookie, maxcount; resok the next cookie, names, eof.
 *
 * <p>Operation: the file's user attribute names, in order, from the one the cookie counts to (0:
 * the first), as many as fit {@code maxcount} bytes of result; the cookie returned counts the names
 * sent so far. A cookie past the end is NFS4ERR_BAD_COOKIE; a maxcount that holds not even the next
 * name is NFS4ERR_TOOSMALL. A pseudo directory has none.
 */
public final class OpListxattrs extends Nfs4Op {
    /** cookie, array length and eof. */
    private static final int OVERHEAD = 8 + 4 + 4;

    public OpListxattrs() {
        super(OP_LISTXATTRS, "LISTXATTRS");
    }

    @Override
    public void run(Compound c) throws Nfs4Exception, XdrException, VfsException {
        XdrDecoder in = c.in();
        long cookie = in.readHyper();
        long maxcount = Integer.toUnsignedLong(in.readInt());
        List<String> names = switch (c.current()) {
            case Fh4.Pseudo p -> List.of();
            case Fh4.File f -> {
                f.target().end(f.target().begin(Conflict.READ, c.breaker()));
                yield f.target().fs().listxattr(c.reader(f.target()), f.target().handle()).stream().sorted().toList();
            }
        };
        if (cookie < 0 || cookie > names.size()) {
            throw new Nfs4Exception(NFS4ERR_BAD_COOKIE, "cookie " + Long.toUnsignedString(cookie) + " of "
                    + names.size() + " names");
        }
        long room = Math.min(maxcount, c.maxResponse() - 1024L) - OVERHEAD;
        int from = (int) cookie;
        int to = from;
        while (to < names.size()) {
            long size = 4 + ((names.get(to).getBytes(StandardCharsets.UTF_8).length + 3) & ~3L);
            if (size > room) {
                break;
            }
            room -= size;
            to++;
        }
        if (to == from && from < names.size()) {
            throw new Nfs4Exception(NFS4ERR_TOOSMALL, "maxcount " + maxcount + " holds no name");
        }
        XdrEncoder out = c.out();
        out.writeHyper(to);
        out.writeInt(to - from);
        for (int i = from; i < to; i++) {
            out.writeString(names.get(i));
        }
        out.writeBool(to == names.size());
    }
}
