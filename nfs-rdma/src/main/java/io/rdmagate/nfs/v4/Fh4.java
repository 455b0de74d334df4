package io.rdmagate.nfs.v4;

import io.rdmagate.nfs.NfsExports;
import io.rdmagate.nfs.NfsExports.Target;
import io.rdmagate.vfs.VfsError;
import io.rdmagate.vfs.VfsException;
import java.nio.ByteBuffer;

/**
 * A current or saved filehandle of a COMPOUND (RFC 8881 §16.2.3.1.1): a directory of the
 * pseudo-filesystem, or a file of an export. A file's wire handle is the NFSv3 one (the same file
 * has the same handle under both versions); a pseudo directory's is 12 bytes:
 * <pre>
 *  'R' 'G' 2 0  node id (8 bytes)
 * </pre>
 */
public sealed interface Fh4 {
    byte[] wire();

    /** A directory of the pseudo-filesystem. */
    record Pseudo(PseudoFs.Node node) implements Fh4 {
        static final byte VERSION = 2;
        static final int LENGTH = 12;

        @Override
        public byte[] wire() {
            return ByteBuffer.allocate(LENGTH).put((byte) 'R').put((byte) 'G').put(VERSION).put((byte) 0)
                    .putLong(node.id()).array();
        }
    }

    /** A file of an export. */
    record File(Target target) implements Fh4 {
        @Override
        public byte[] wire() {
            return NfsExports.wire(target.export(), target.handle());
        }
    }

    /** Resolves a wire handle: NFS4ERR_BADHANDLE for one this server never made, NFS4ERR_STALE for one whose file is gone. */
    static Fh4 resolve(byte[] wire, NfsExports exports, PseudoFs pseudo) throws VfsException {
        if (wire.length == Pseudo.LENGTH && wire[0] == 'R' && wire[1] == 'G' && wire[2] == Pseudo.VERSION && wire[3] == 0) {
            PseudoFs.Node n = pseudo.node(ByteBuffer.wrap(wire, 4, 8).getLong());
            if (n == null) {
                throw new VfsException(VfsError.STALE, "pseudo directory no longer exported");
            }
            return new Pseudo(n);
        }
        return new File(exports.resolve(wire));
    }
}
