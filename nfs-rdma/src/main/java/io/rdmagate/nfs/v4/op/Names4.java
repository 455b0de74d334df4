package io.rdmagate.nfs.v4.op;

import static io.rdmagate.nfs.v4.Nfs4.*;

import io.rdmagate.nfs.v4.Nfs4Exception;
import io.rdmagate.oncrpc.xdr.XdrDecoder;
import io.rdmagate.oncrpc.xdr.XdrException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/** component4 (RFC 8881 §14.5): UTF-8, checked strictly, as RFC 8881 §14.4 allows servers to. */
final class Names4 {
    private Names4() {
    }

    /** A name: NFS4ERR_INVAL when empty or not UTF-8, NFS4ERR_BADNAME for "." and ".." or '/' or NUL, NFS4ERR_NAMETOOLONG past 255 bytes. */
    static String read(XdrDecoder in) throws XdrException, Nfs4Exception {
        return check(in.readOpaque(NFS4_OPAQUE_LIMIT));
    }

    /** A name read as bytes, checked as {@link #read} does. */
    static String check(byte[] raw) throws Nfs4Exception {
        if (raw.length == 0) {
            throw new Nfs4Exception(NFS4ERR_INVAL, "empty name");
        }
        if (raw.length > 255) {
            throw new Nfs4Exception(NFS4ERR_NAMETOOLONG, "name of " + raw.length + " bytes");
        }
        String name = utf8(raw);
        if (name.equals(".") || name.equals("..") || name.indexOf('/') >= 0 || name.indexOf('\0') >= 0) {
            throw new Nfs4Exception(NFS4ERR_BADNAME, "name '" + name + "'");
        }
        return name;
    }

    static String utf8(byte[] raw) throws Nfs4Exception {
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(raw)).toString();
        } catch (CharacterCodingException e) {
            throw new Nfs4Exception(NFS4ERR_INVAL, "name is not UTF-8");
        }
    }
}
