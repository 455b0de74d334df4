package io.rdmagate.smb.mssmb2;

import java.nio.ByteBuffer;
import java.util.List;

/**
 * NEGOTIATE (MS-SMB2 2.2.3 request, 2.2.4 response).
 *
 * <p>Accepts: StructureSize 36, 1..64 dialects, negotiate contexts when 3.1.1 is offered.
 * Refuses: DialectCount 0 (3.3.5.3.1: STATUS_INVALID_PARAMETER), dialects or contexts outside the
 * message.
 */
public final class Smb2Negotiate {
    private Smb2Negotiate() {
    }

    public record Request(int securityMode, int capabilities, byte[] clientGuid, List<Integer> dialects,
            List<NegotiateContext> contexts) {
    }

    public static Request decode(ByteBuffer m) throws Smb2DecodeException {
        Wire.body(m, 36, 36, "NEGOTIATE");
        int b = Smb2Header.SIZE;
        int count = Wire.u16(m, b + 2);
        if (count == 0 || count > 64) {
            throw new Smb2DecodeException("DialectCount " + count);
        }
        Wire.range(m, b + 36, 2L * count, "Dialects");
        List<Integer> dialects = new java.util.ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            dialects.add(Wire.u16(m, b + 36 + 2 * i));
        }
        List<NegotiateContext> contexts = List.of();
        if (dialects.contains(Smb2Dialect.SMB_3_1_1)) {
            long off = Wire.u32(m, b + 28);
            int n = Wire.u16(m, b + 32);
            if (n > 0) {
                contexts = NegotiateContext.decodeList(m, off, n);
            }
        }
        return new Request(Wire.u16(m, b + 4), m.getInt(b + 8), Wire.bytes(m, b + 12, 16), dialects, contexts);
    }

    /** Response fields; {@code contexts} are (type, data) pairs written for 3.1.1. */
    public record Response(int securityMode, int dialect, byte[] serverGuid, int capabilities, int maxTransact,
            int maxRead, int maxWrite, long systemTime, byte[] securityBuffer, List<Object[]> contexts) {
    }

    /** Writes the body; returns its length. */
    public static int write(ByteBuffer m, Response r) {
        int b = Smb2Header.SIZE;
        m.putShort(b, (short) 65).putShort(b + 2, (short) r.securityMode()).putShort(b + 4, (short) r.dialect());
        m.putShort(b + 6, (short) r.contexts().size());
        m.put(b + 8, r.serverGuid());
        m.putInt(b + 24, r.capabilities()).putInt(b + 28, r.maxTransact()).putInt(b + 32, r.maxRead())
                .putInt(b + 36, r.maxWrite()).putLong(b + 40, r.systemTime()).putLong(b + 48, 0);
        int secOff = b + 64;
        m.putShort(b + 56, (short) secOff).putShort(b + 58, (short) r.securityBuffer().length);
        m.put(secOff, r.securityBuffer());
        int end = secOff + r.securityBuffer().length;
        if (r.contexts().isEmpty()) {
            m.putInt(b + 60, 0);
            return end - b;
        }
        int at = Wire.align8(end);
        m.putInt(b + 60, at);
        for (int i = 0; i < r.contexts().size(); i++) {
            Object[] c = r.contexts().get(i);
            if (i > 0) {
                int aligned = Wire.align8(at);
                for (int p = at; p < aligned; p++) {
                    m.put(p, (byte) 0);
                }
                at = aligned;
            }
            for (int p = end; p < at && i == 0; p++) {
                m.put(p, (byte) 0);
            }
            at = NegotiateContext.write(m, at, (Integer) c[0], (byte[]) c[1]);
        }
        return at - b;
    }
}
