package io.rdmagate.nfs.nlm;

import io.rdmagate.oncrpc.server.RpcCall;
import io.rdmagate.oncrpc.xdr.XdrMessage;

/** NLM4_NULL: no arguments, no results. */
final class Nlm4Null implements NlmProcedure {
    @Override
    public XdrMessage run(NlmService nlm, RpcCall call) {
        return call.success().finish();
    }
}
