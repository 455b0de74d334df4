package io.rdmagate.nfs.v4.op;

import static io.rdmagate.nfs.v4.Nfs4.*;

import io.rdmagate.nfs.v4.Nfs4Exception;
import io.rdmagate.nfs.v4.state.LockState;
import io.rdmagate.oncrpc.xdr.XdrEncoder;
import io.rdmagate.vfs.lock.ByteRangeLock;
import io.rdmagate.vfs.lock.LockConflictException;
import java.nio.charset.StandardCharsets;

/**
 * What LOCK, LOCKT and LOCKU share (RFC 8881 §9.2, §18.10-18.12): lock types, ranges and the
 * LOCK4denied that names a holder. A length of all ones is "to the end of the file" (the vfs's POSIX
 * length 0); a length of 0, or a range past 2^64, is NFS4ERR_INVAL.
 */
final class Locks4 {
    static final int READ_LT = 1;
    static final int WRITE_LT = 2;
    static final int READW_LT = 3;
    static final int WRITEW_LT = 4;

    private Locks4() {
    }

    static boolean exclusive(int type) throws Nfs4Exception {
        return switch (type) {
            case READ_LT, READW_LT -> false;
            case WRITE_LT, WRITEW_LT -> true;
            default -> throw new Nfs4Exception(NFS4ERR_INVAL, "lock type " + type);
        };
    }

    /** Whether the client would wait for the lock (READW_LT, WRITEW_LT): it may be told when it is free. */
    static boolean blocking(int type) {
        return type == READW_LT || type == WRITEW_LT;
    }

    /** The vfs length (0: to the end) of an NFSv4 range. */
    static long length(long offset, long length) throws Nfs4Exception {
        if (length == 0) {
            throw new Nfs4Exception(NFS4ERR_INVAL, "lock length 0");
        }
        if (length == -1L) {
            return 0;
        }
        if (Long.compareUnsigned(length, -1L - offset) > 0) {
            throw new Nfs4Exception(NFS4ERR_INVAL, "range past 2^64");
        }
        return length;
    }

    /** LOCK4denied for the holder a conflict names: its range and type, and its owner when it is an NFSv4 one. */
    static void denied(XdrEncoder out, Exception cause) {
        if (!(cause instanceof LockConflictException conflict)) {
            out.writeHyper(0);
            out.writeHyper(-1L);
            out.writeInt(WRITE_LT);
            out.writeHyper(0);
            out.writeOpaque(new byte[0]);
            return;
        }
        ByteRangeLock h = conflict.holder();
        out.writeHyper(h.offset());
        out.writeHyper(h.length() == 0 ? -1L : h.length());
        out.writeInt(h.exclusive() ? WRITE_LT : READ_LT);
        String client = h.owner().client();
        long clientId = 0;
        if (client.startsWith(LockState.clientKey(0).substring(0, 5))) {
            clientId = Long.parseUnsignedLong(client.substring(5), 16);
        }
        out.writeHyper(clientId);
        byte[] owner = clientId != 0 ? h.owner().opaque() : h.owner().key().getBytes(StandardCharsets.UTF_8);
        out.writeOpaque(owner.length <= NFS4_OPAQUE_LIMIT ? owner : java.util.Arrays.copyOf(owner, NFS4_OPAQUE_LIMIT));
    }
}
