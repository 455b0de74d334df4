package io.rdmagate.nfs.v4.op;

import static io.rdmagate.nfs.v4.Nfs4.*;

import io.rdmagate.nfs.v4.Nfs4Exception;
import io.rdmagate.oncrpc.xdr.XdrDecoder;
import io.rdmagate.oncrpc.xdr.XdrException;

/**
 * What the extended attribute operations of RFC 8276 share. Names are of the "user" namespace,
 * which the protocol leaves implicit (a client's {@code user.name} is {@code name} on the wire) and
 * the backend stores as {@code user.name}; values are at most {@link #MAX_VALUE} bytes, Linux's
 * XATTR_SIZE_MAX.
 */
final class Xattrs4 {
    static final int MAX_VALUE = 65536;
    /** Linux's XATTR_NAME_MAX, with the "user." the wire leaves out. */
    static final int MAX_NAME = 255 - 5;

    private Xattrs4() {
    }

    /** xattrkey4 (a component4): NFS4ERR_NAMETOOLONG beyond {@link #MAX_NAME} bytes, NFS4ERR_INVAL when empty. */
    static String readName(XdrDecoder in) throws XdrException, Nfs4Exception {
        String name = in.readString(NFS4_OPAQUE_LIMIT);
        if (name.isEmpty()) {
            throw new Nfs4Exception(NFS4ERR_INVAL, "an empty xattr name");
        }
        if (name.getBytes(java.nio.charset.StandardCharsets.UTF_8).length > MAX_NAME) {
            throw new Nfs4Exception(NFS4ERR_NAMETOOLONG, "xattr name of more than " + MAX_NAME + " bytes");
        }
        return name;
    }
}
