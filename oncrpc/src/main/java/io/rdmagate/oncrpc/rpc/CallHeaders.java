package io.rdmagate.oncrpc.rpc;

import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;

/** Writes RFC 5531 §9 call headers (for clients and tests). */
public final class CallHeaders {
    private CallHeaders() {
    }

    public static ByteBuf write(ByteBuf out, int xid, int prog, int vers, int proc, Credentials cred) {
        out.writeInt(xid);
        out.writeInt(Rpc.CALL);
        out.writeInt(Rpc.VERSION);
        out.writeInt(prog);
        out.writeInt(vers);
        out.writeInt(proc);
        writeCredential(out, cred);
        out.writeInt(AuthFlavor.AUTH_NONE); // verifier
        out.writeInt(0);
        return out;
    }

    public static void writeCredential(ByteBuf out, Credentials cred) {
        out.writeInt(cred.flavor());
        if (cred instanceof AuthSys s) {
            int lenAt = out.writerIndex();
            out.writeInt(0);
            int start = out.writerIndex();
            out.writeInt(s.stamp());
            byte[] name = s.machineName().getBytes(StandardCharsets.UTF_8);
            out.writeInt(name.length);
            out.writeBytes(name);
            out.writeZero(-name.length & 3);
            out.writeInt(s.uid());
            out.writeInt(s.gid());
            int[] gids = s.gids();
            out.writeInt(gids.length);
            for (int g : gids) {
                out.writeInt(g);
            }
            out.setInt(lenAt, out.writerIndex() - start);
        } else {
            out.writeInt(0);
        }
    }
}
