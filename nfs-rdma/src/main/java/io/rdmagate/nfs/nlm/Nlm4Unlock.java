package io.rdmagate.nfs.nlm;

import io.rdmagate.nfs.NfsExports.Target;
import io.rdmagate.oncrpc.server.RpcCall;
import io.rdmagate.oncrpc.xdr.XdrDecoder;
import io.rdmagate.oncrpc.xdr.XdrException;
import io.rdmagate.oncrpc.xdr.XdrMessage;
import io.rdmagate.vfs.VfsException;
import io.rdmagate.vfs.lock.LockSemantics;

/**
 * NLM4_UNLOCK: args nlm4_unlockargs (cookie, alock); result nlm4_res. Releases the owner's locks in
 * the range (fcntl semantics: unlocking what is not locked succeeds); waiting requests that no
 * longer conflict are granted and called back.
 */
final class Nlm4Unlock implements NlmProcedure {
    @Override
    public XdrMessage run(NlmService nlm, RpcCall call) throws XdrException {
        XdrDecoder in = call.decoder();
        byte[] cookie = in.readOpaque(Nlm4.MAXNETOBJ_SZ);
        NlmLock lock = NlmLock.read(in);
        int stat;
        try {
            Target t = nlm.target(call, lock.fh());
            t.fs().locks().unlock(t.handle().fileId(), lock.owner(), lock.offset(), lock.length(), LockSemantics.POSIX);
            stat = Nlm4.GRANTED_STAT;
        } catch (VfsException e) {
            stat = NlmService.status(e);
        }
        return NlmService.res(call, cookie, stat);
    }
}
