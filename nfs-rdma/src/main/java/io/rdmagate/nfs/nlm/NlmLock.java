package io.rdmagate.nfs.nlm;

import io.rdmagate.oncrpc.xdr.XdrDecoder;
import io.rdmagate.oncrpc.xdr.XdrEncoder;
import io.rdmagate.oncrpc.xdr.XdrException;
import io.rdmagate.vfs.lock.ByteRangeLock;
import io.rdmagate.vfs.lock.LockOwner;
import io.rdmagate.vfs.lock.LockSemantics;
import java.util.HexFormat;

/**
 * §6.1 nlm4_lock: caller_name, fh, oh, svid, l_offset, l_len. Accepts a caller name and netobjs of
 * at most 1024 bytes; refuses longer ones and truncated input as GARBAGE_ARGS. A length of 0 locks
 * to the end of any file (fcntl semantics, {@link LockSemantics#POSIX}).
 */
public record NlmLock(String callerName, byte[] fh, byte[] oh, int svid, long offset, long length) {

    public static NlmLock read(XdrDecoder in) throws XdrException {
        String caller = in.readString(Nlm4.LM_MAXSTRLEN);
        byte[] fh = in.readOpaque(Nlm4.MAXNETOBJ_SZ);
        byte[] oh = in.readOpaque(Nlm4.MAXNETOBJ_SZ);
        int svid = in.readInt();
        long offset = in.readHyper();
        long length = in.readHyper();
        return new NlmLock(caller, fh, oh, svid, offset, length);
    }

    public void write(XdrEncoder out) {
        out.writeString(callerName);
        out.writeOpaque(fh);
        out.writeOpaque(oh);
        out.writeInt(svid);
        out.writeHyper(offset);
        out.writeHyper(length);
    }

    /** The owner: one process (svid, oh) of one client host; the key is unique across protocols. */
    public LockOwner owner() {
        return new LockOwner("nlm:" + callerName + ":" + svid + ":" + HexFormat.of().formatHex(oh), callerName, svid,
                oh);
    }

    public ByteRangeLock request(boolean exclusive) {
        return new ByteRangeLock(owner(), offset, length, exclusive, LockSemantics.POSIX);
    }
}
