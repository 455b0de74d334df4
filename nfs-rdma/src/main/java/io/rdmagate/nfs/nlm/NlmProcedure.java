package io.rdmagate.nfs.nlm;

import io.rdmagate.oncrpc.server.RpcCall;
import io.rdmagate.oncrpc.xdr.XdrException;
import io.rdmagate.oncrpc.xdr.XdrMessage;

/** One NLM v4 procedure. Decodes all its arguments before it acts. */
interface NlmProcedure {
    XdrMessage run(NlmService nlm, RpcCall call) throws XdrException;
}
