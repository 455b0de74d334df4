package io.rdmagate.nfs.nlm;

import io.rdmagate.oncrpc.server.RpcCall;
import io.rdmagate.oncrpc.xdr.XdrDecoder;
import io.rdmagate.oncrpc.xdr.XdrException;
import io.rdmagate.oncrpc.xdr.XdrMessage;

/**
 * NLM4_CANCEL: args nlm4_cancargs (cookie, block, exclusive, alock); result nlm4_res: nlm4_granted
 * when a waiting request matched and was withdrawn, nlm4_denied when none waits.
 */
final class Nlm4Cancel implements NlmProcedure {
    @Override
    public XdrMessage run(NlmService nlm, RpcCall call) throws XdrException {
        XdrDecoder in = call.decoder();
        byte[] cookie = in.readOpaque(Nlm4.MAXNETOBJ_SZ);
        in.readBool(); // block
        boolean exclusive = in.readBool();
        NlmLock lock = NlmLock.read(in);
        return NlmService.res(call, cookie, nlm.cancel(call, lock, exclusive));
    }
}
