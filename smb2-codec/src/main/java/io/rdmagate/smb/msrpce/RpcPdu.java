package io.rdmagate.smb.msrpce;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Connection-oriented DCE/RPC PDUs (C706 chapter 12, MS-RPCE 2.2.2), the subset a named-pipe
 * server without authentication needs: BIND, ALTER_CONTEXT, REQUEST in; BIND_ACK,
 * ALTER_CONTEXT_RESP, RESPONSE, FAULT out. Little-endian, as every client sends them.
 *
 * <p>Accepts ({@link #fragment}): rpc_vers 5.0, little-endian data representation, a frag_length
 * of at least 16 within the bytes given, and both PFC_FIRST_FRAG and PFC_LAST_FRAG (calls that fit
 * one fragment). Refuses anything else with {@link RpcDecodeException}.
 */
public final class RpcPdu {
    public static final int REQUEST = 0;
    public static final int RESPONSE = 2;
    public static final int FAULT = 3;
    public static final int BIND = 11;
    public static final int BIND_ACK = 12;
    public static final int ALTER_CONTEXT = 14;
    public static final int ALTER_CONTEXT_RESP = 15;
    /** C706 appendix E: the requested operation number is outside the interface. */
    public static final int NCA_OP_RNG_ERROR = 0x1c010002;
    public static final int HEADER = 16;
    /** NDR 2.0, the transfer syntax every client offers. */
    public static final byte[] NDR_UUID = uuid("8a885d04-1ceb-11c9-9fe8-08002b104860");
    /** MS-RPCE 3.3.1.5.3: the bind time feature negotiation pseudo-syntax (its first 8 bytes). */
    static final byte[] BTFN_PREFIX = {0x2c, 0x1c, (byte) 0xb7, 0x6c, 0x12, (byte) 0x98, 0x40, 0x45};

    private RpcPdu() {
    }

    /** A DCE UUID as sent on the wire: the first three fields little-endian. */
    public static byte[] uuid(String s) {
        byte[] raw = java.util.HexFormat.of().parseHex(s.replace("-", ""));
        return new byte[] {raw[3], raw[2], raw[1], raw[0], raw[5], raw[4], raw[7], raw[6], raw[8], raw[9], raw[10],
            raw[11], raw[12], raw[13], raw[14], raw[15]};
    }

    /** The length of the fragment at {@code b}'s position, checked against what remains. */
    public static int fragment(ByteBuffer b) throws RpcDecodeException {
        if (b.remaining() < HEADER) {
            throw new RpcDecodeException("DCE/RPC fragment shorter than its header");
        }
        int at = b.position();
        int fragLen = Short.toUnsignedInt(b.getShort(at + 8));
        if (b.get(at) != 5 || b.get(at + 1) != 0 || fragLen < HEADER || fragLen > b.remaining()
                || (b.get(at + 4) & 0xf0) != 0x10) {
            throw new RpcDecodeException("malformed DCE/RPC fragment");
        }
        if ((b.get(at + 3) & 0x3) != 0x3) {
            throw new RpcDecodeException("fragmented DCE/RPC calls are not supported");
        }
        return fragLen;
    }

    public static int type(ByteBuffer f) {
        return Byte.toUnsignedInt(f.get(2));
    }

    public static int callId(ByteBuffer f) {
        return f.getInt(12);
    }

    /** One presentation context of a BIND: its id, abstract syntax and the transfer syntaxes offered. */
    public record Context(int id, byte[] abstractSyntax, int abstractVersion, boolean offersNdr20, boolean bindTimeFeatures) {
        public boolean is(byte[] uuid, int version) {
            return Arrays.equals(abstractSyntax, uuid) && abstractVersion == version;
        }
    }

    /** BIND or ALTER_CONTEXT (C706 12.6.4.3): max_xmit_frag, max_recv_frag and the contexts. */
    public record Bind(int maxXmit, int maxRecv, List<Context> contexts) {
    }

    public static Bind bind(ByteBuffer f) throws RpcDecodeException {
        if (f.limit() < 28) {
            throw new RpcDecodeException("short BIND");
        }
        int n = Byte.toUnsignedInt(f.get(24));
        List<Context> out = new ArrayList<>(n);
        int at = 28;
        for (int i = 0; i < n; i++) {
            if (at + 24 > f.limit()) {
                throw new RpcDecodeException("BIND context outside the fragment");
            }
            int nts = Byte.toUnsignedInt(f.get(at + 2));
            byte[] abs = new byte[16];
            f.get(at + 4, abs);
            int absVer = Short.toUnsignedInt(f.getShort(at + 20));
            int p = at + 24;
            if (p + 20L * nts > f.limit()) {
                throw new RpcDecodeException("BIND transfer syntaxes outside the fragment");
            }
            boolean ndr = false;
            boolean btfn = false;
            for (int k = 0; k < nts; k++) {
                byte[] ts = new byte[16];
                f.get(p + 20 * k, ts);
                ndr |= Arrays.equals(ts, NDR_UUID) && f.getInt(p + 20 * k + 16) == 2;
                btfn |= Arrays.equals(ts, 0, 8, BTFN_PREFIX, 0, 8);
            }
            out.add(new Context(Short.toUnsignedInt(f.getShort(at)), abs, absVer, ndr, btfn));
            at = p + 20 * nts;
        }
        return new Bind(Short.toUnsignedInt(f.getShort(16)), Short.toUnsignedInt(f.getShort(18)), out);
    }

    /** What the server answers for one context (C706 12.6.3.1 p_result_t). */
    public enum Result { ACCEPT, PROVIDER_REJECTION, NEGOTIATE_ACK }

    /**
     * BIND_ACK (for a BIND, naming {@code port}) or ALTER_CONTEXT_RESP (port null): the fragment
     * sizes bounded by 4280, association group 0x53f0, one result per context (an accepted one
     * with NDR 2.0).
     */
    public static byte[] bindAck(int ptype, int callId, Bind bind, String port, List<Result> results) {
        ByteBuffer body = ByteBuffer.allocate(64 + 24 * results.size() + (port == null ? 0 : port.length()))
                .order(ByteOrder.LITTLE_ENDIAN);
        body.putShort((short) Math.min(bind.maxXmit(), 4280)).putShort((short) Math.min(bind.maxRecv(), 4280))
                .putInt(0x53f0);
        if (port != null) {
            byte[] p = (port + "\0").getBytes(StandardCharsets.US_ASCII);
            body.putShort((short) p.length).put(p);
        } else {
            body.putShort((short) 0);
        }
        while (body.position() % 4 != 0) {
            body.put((byte) 0);
        }
        body.put((byte) results.size()).put((byte) 0).putShort((short) 0);
        for (Result r : results) {
            switch (r) {
                case ACCEPT -> body.putShort((short) 0).putShort((short) 0).put(NDR_UUID).putInt(2);
                case NEGOTIATE_ACK -> body.putShort((short) 3).putShort((short) 0).put(new byte[20]);
                default -> body.putShort((short) 2).putShort((short) 2).put(new byte[20]);
            }
        }
        return pdu(ptype == BIND ? BIND_ACK : ALTER_CONTEXT_RESP, callId, Arrays.copyOf(body.array(), body.position()));
    }

    /** REQUEST (C706 12.6.4.9): the context it names, its operation number and its NDR stub. */
    public record Request(int contextId, int opnum, ByteBuffer stub) {
    }

    public static Request request(ByteBuffer f) throws RpcDecodeException {
        if (f.limit() < 24) {
            throw new RpcDecodeException("short REQUEST");
        }
        return new Request(Short.toUnsignedInt(f.getShort(20)), Short.toUnsignedInt(f.getShort(22)),
                f.slice(24, f.limit() - 24).order(ByteOrder.LITTLE_ENDIAN));
    }

    /** RESPONSE carrying {@code stub}. */
    public static byte[] response(int callId, int contextId, byte[] stub) {
        ByteBuffer body = ByteBuffer.allocate(8 + stub.length).order(ByteOrder.LITTLE_ENDIAN);
        body.putInt(stub.length).putShort((short) contextId).put((byte) 0).put((byte) 0).put(stub);
        return pdu(RESPONSE, callId, body.array());
    }

    /** FAULT with {@code status}. */
    public static byte[] fault(int callId, int contextId, int status) {
        ByteBuffer body = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN);
        body.putInt(0).putShort((short) contextId).put((byte) 0).put((byte) 0).putInt(status).putInt(0);
        return pdu(FAULT, callId, body.array());
    }

    private static byte[] pdu(int ptype, int callId, byte[] body) {
        ByteBuffer h = ByteBuffer.allocate(HEADER + body.length).order(ByteOrder.LITTLE_ENDIAN);
        h.put((byte) 5).put((byte) 0).put((byte) ptype).put((byte) 3).putInt(0x10)
                .putShort((short) (HEADER + body.length)).putShort((short) 0).putInt(callId).put(body);
        return h.array();
    }
}
