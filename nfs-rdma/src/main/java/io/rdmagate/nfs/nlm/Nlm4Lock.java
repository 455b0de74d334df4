package io.rdmagate.nfs.nlm;

import io.rdmagate.oncrpc.server.RpcCall;
import io.rdmagate.oncrpc.xdr.XdrDecoder;
import io.rdmagate.oncrpc.xdr.XdrException;
import io.rdmagate.oncrpc.xdr.XdrMessage;

/**
 * NLM4_LOCK: args nlm4_lockargs (cookie, block, exclusive, alock, reclaim, state); result nlm4_res.
 * A free range is nlm4_granted. A taken one is nlm4_denied, or with block nlm4_blocked: the request
 * waits in the vfs lock queue and, once granted, the server calls NLM4_GRANTED back on the
 * client's NLM service (found through rpcbind on the client's host). A wait that would deadlock is
 * nlm4_deadlck. NM_LOCK (procedure 22, no status monitoring) is the same without blocking.
 */
final class Nlm4Lock implements NlmProcedure {
    private final boolean monitored;

    Nlm4Lock(boolean monitored) {
        this.monitored = monitored;
    }

    @Override
    public XdrMessage run(NlmService nlm, RpcCall call) throws XdrException {
        XdrDecoder in = call.decoder();
        byte[] cookie = in.readOpaque(Nlm4.MAXNETOBJ_SZ);
        boolean block = in.readBool();
        boolean exclusive = in.readBool();
        NlmLock lock = NlmLock.read(in);
        in.readBool(); // reclaim: locks are not kept across restarts, so a reclaim is a fresh request
        in.readInt(); // state: the client's NSM state
        int stat = nlm.lock(call, lock, exclusive, block && monitored, cookie);
        return NlmService.res(call, cookie, stat);
    }
}
