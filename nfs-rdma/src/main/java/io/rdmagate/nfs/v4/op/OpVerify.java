package io.rdmagate.nfs.v4.op;

import static io.rdmagate.nfs.v4.Nfs4.*;

import io.rdmagate.nfs.v4.Compound;
import io.rdmagate.nfs.v4.Fattr4;
import io.rdmagate.nfs.v4.Nfs4Exception;
import io.rdmagate.nfs.v4.Nfs4Op;
import io.rdmagate.oncrpc.xdr.XdrDecoder;
import io.rdmagate.oncrpc.xdr.XdrException;
import io.rdmagate.vfs.VfsException;

/**
 * RFC 8881 §18.31 VERIFY and §18.15 NVERIFY: args fattr4; the COMPOUND goes on when the current
 * object's attributes are (VERIFY) or are not (NVERIFY) those given, else it ends with
 * NFS4ERR_NOT_SAME or NFS4ERR_SAME. The attributes are compared as this server encodes them;
 * one it does not support is NFS4ERR_ATTRNOTSUPP, and rdattr_error NFS4ERR_INVAL (§18.31.3).
 */
public final class OpVerify extends Nfs4Op {
    private final boolean same;

    private OpVerify(int number, String name, boolean same) {
        super(number, name);
        this.same = same;
    }

    public static OpVerify verify() {
        return new OpVerify(OP_VERIFY, "VERIFY", true);
    }

    public static OpVerify nverify() {
        return new OpVerify(OP_NVERIFY, "NVERIFY", false);
    }

    @Override
    public void run(Compound c) throws Nfs4Exception, XdrException, VfsException {
        XdrDecoder in = c.in();
        int[] bitmap = Fattr4.readBitmap(in);
        byte[] given = in.readOpaque(1 << 16);
        if (Fattr4.isSet(bitmap, Fattr4.RDATTR_ERROR)) {
            throw new Nfs4Exception(NFS4ERR_INVAL, "rdattr_error cannot be verified");
        }
        int[] supported = Fattr4.supported(bitmap, c.minor());
        for (int i = 0; i < bitmap.length; i++) {
            if (bitmap[i] != (i < supported.length ? supported[i] : 0)) {
                throw new Nfs4Exception(NFS4ERR_ATTRNOTSUPP, "an attribute this server does not report");
            }
        }
        boolean equal = java.util.Arrays.equals(given, Fattr4.values(bitmap, c.attributes(c.current()), c.server()));
        if (equal != same) {
            throw new Nfs4Exception(same ? NFS4ERR_NOT_SAME : NFS4ERR_SAME, "attributes " + (equal ? "match" : "differ"));
        }
    }
}
