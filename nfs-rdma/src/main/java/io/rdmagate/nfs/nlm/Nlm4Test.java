package io.rdmagate.nfs.nlm;

import io.rdmagate.nfs.NfsExports.Target;
import io.rdmagate.oncrpc.server.RpcCall;
import io.rdmagate.oncrpc.xdr.XdrDecoder;
import io.rdmagate.oncrpc.xdr.XdrEncoder;
import io.rdmagate.oncrpc.xdr.XdrException;
import io.rdmagate.oncrpc.xdr.XdrMessage;
import io.rdmagate.vfs.VfsException;
import io.rdmagate.vfs.lock.ByteRangeLock;
import java.util.Optional;

/**
 * NLM4_TEST: args nlm4_testargs (cookie, exclusive, alock); result nlm4_testres: the cookie and
 * nlm4_granted, or nlm4_denied with the holder (exclusive, svid, oh, offset, length) of a lock
 * that would block the request, whichever protocol took it (an SMB holder has svid 0, empty oh).
 */
final class Nlm4Test implements NlmProcedure {
    @Override
    public XdrMessage run(NlmService nlm, RpcCall call) throws XdrException {
        XdrDecoder in = call.decoder();
        byte[] cookie = in.readOpaque(Nlm4.MAXNETOBJ_SZ);
        boolean exclusive = in.readBool();
        NlmLock lock = NlmLock.read(in);
        int stat;
        ByteRangeLock holder = null;
        try {
            Target t = nlm.target(call, lock.fh());
            t.end(t.begin(io.rdmagate.vfs.state.Conflict.LOCK)); // locks an SMB client keeps under a write lease come in first
            Optional<ByteRangeLock> h = t.fs().locks().test(t.handle().fileId(), lock.request(exclusive));
            holder = h.orElse(null);
            stat = holder == null ? Nlm4.GRANTED_STAT : Nlm4.DENIED;
        } catch (VfsException e) {
            stat = NlmService.status(e);
        }
        XdrEncoder out = call.success();
        out.writeOpaque(cookie);
        out.writeInt(stat);
        if (stat == Nlm4.DENIED) {
            out.writeBool(holder.exclusive());
            out.writeInt(holder.owner().pid());
            out.writeOpaque(holder.owner().opaque());
            out.writeHyper(holder.offset());
            out.writeHyper(holder.length());
        }
        return out.finish();
    }
}
