package io.rdmagate.nfs.nlm;

import io.rdmagate.oncrpc.server.RpcCall;
import io.rdmagate.oncrpc.server.RpcErrorException;
import io.rdmagate.oncrpc.server.RpcProgram;
import io.rdmagate.oncrpc.xdr.XdrDecoder;
import io.rdmagate.oncrpc.xdr.XdrEncoder;
import io.rdmagate.oncrpc.xdr.XdrException;
import io.rdmagate.oncrpc.xdr.XdrMessage;

/**
 * NSM, the status monitor (program 100024 version 1, X/Open XNFS chapter 11), as far as an NLM
 * server needs it. SM_NOTIFY (a client host rebooted) releases that client's locks. SM_STAT,
 * SM_MON, SM_UNMON and SM_UNMON_ALL answer with this server's state number (odd: up) and record
 * nothing: the server never restarts without dropping every lock, so it has nobody to notify.
 *
 * <p>Accepts names of at most 1024 bytes (SM_MAXSTRLEN); refuses longer ones and truncated input as
 * GARBAGE_ARGS.
 */
final class NsmProgram implements RpcProgram {
    private final NlmService nlm;

    NsmProgram(NlmService nlm) {
        this.nlm = nlm;
    }

    @Override
    public int program() {
        return Nlm4.NSM_PROGRAM;
    }

    @Override
    public String name() {
        return "nsm";
    }

    @Override
    public int lowVersion() {
        return Nlm4.NSM_VERSION;
    }

    @Override
    public int highVersion() {
        return Nlm4.NSM_VERSION;
    }

    @Override
    public XdrMessage handle(RpcCall call) throws XdrException, RpcErrorException {
        XdrDecoder in = call.decoder();
        switch (call.procedure()) {
            case Nlm4.SM_NULL, Nlm4.SM_SIMU_CRASH -> {
                return call.success().finish();
            }
            case Nlm4.SM_STAT -> {
                in.readString(Nlm4.LM_MAXSTRLEN);
                return statRes(call);
            }
            case Nlm4.SM_MON -> {
                in.readString(Nlm4.LM_MAXSTRLEN); // mon_id.mon_name
                in.readString(Nlm4.LM_MAXSTRLEN); // my_id.my_name
                in.skip(12); // my_prog, my_vers, my_proc
                in.skip(16); // priv
                return statRes(call);
            }
            case Nlm4.SM_UNMON -> {
                in.readString(Nlm4.LM_MAXSTRLEN);
                in.readString(Nlm4.LM_MAXSTRLEN);
                in.skip(12);
                return state(call);
            }
            case Nlm4.SM_UNMON_ALL -> {
                in.readString(Nlm4.LM_MAXSTRLEN);
                in.skip(12);
                return state(call);
            }
            case Nlm4.SM_NOTIFY -> {
                String host = in.readString(Nlm4.LM_MAXSTRLEN);
                in.readInt(); // the client's new state
                nlm.releaseClient(host);
                return call.success().finish();
            }
            default -> throw RpcErrorException.procUnavailable(call.procedure());
        }
    }

    private XdrMessage statRes(RpcCall call) {
        XdrEncoder out = call.success();
        out.writeInt(Nlm4.STAT_SUCC);
        out.writeInt(nlm.nsmState());
        return out.finish();
    }

    private XdrMessage state(RpcCall call) {
        XdrEncoder out = call.success();
        out.writeInt(nlm.nsmState());
        return out.finish();
    }
}
