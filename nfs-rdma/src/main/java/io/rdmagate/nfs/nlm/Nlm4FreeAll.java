package io.rdmagate.nfs.nlm;

import io.rdmagate.oncrpc.server.RpcCall;
import io.rdmagate.oncrpc.xdr.XdrDecoder;
import io.rdmagate.oncrpc.xdr.XdrException;
import io.rdmagate.oncrpc.xdr.XdrMessage;

/**
 * NLM4_FREE_ALL: args nlm4_notify (name, state); no results. Releases every lock and withdraws
 * every waiting request of the named client, on every export.
 */
final class Nlm4FreeAll implements NlmProcedure {
    @Override
    public XdrMessage run(NlmService nlm, RpcCall call) throws XdrException {
        XdrDecoder in = call.decoder();
        String name = in.readString(Nlm4.LM_MAXSTRLEN);
        in.readInt(); // state
        nlm.releaseClient(name);
        return call.success().finish();
    }
}
