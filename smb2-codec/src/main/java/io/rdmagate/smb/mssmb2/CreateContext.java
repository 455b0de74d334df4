package io.rdmagate.smb.mssmb2;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * SMB2_CREATE_CONTEXT (MS-SMB2 2.2.13.2): Next(4) NameOffset(2) NameLength(2) Reserved(2)
 * DataOffset(2) DataLength(4), offsets from the context's start, contexts 8-byte aligned.
 *
 * <p>Accepts: up to 32 contexts, names of 1..64 bytes, name and data inside their context and the
 * list. Refuses: a Next that is unaligned or leaves the list, overlapping or out-of-bounds name or
 * data (STATUS_INVALID_PARAMETER, 3.3.5.9).
 */
public record CreateContext(String name, ByteBuffer data) {
    public static final String MXAC = "MxAc";
    public static final String QFID = "QFid";
    public static final String DHNQ = "DHnQ";
    public static final String DHNC = "DHnC";
    public static final String DH2Q = "DH2Q";
    public static final String DH2C = "DH2C";
    public static final String RQLS = "RqLs";
    public static final String EXTA = "ExtA";
    public static final String SECD = "SecD";
    public static final String ALSI = "AlSi";
    public static final String TWRP = "TWrp";

    public static List<CreateContext> decodeList(ByteBuffer list) throws Smb2DecodeException {
        List<CreateContext> out = new ArrayList<>();
        int at = 0;
        while (true) {
            if (out.size() >= 32) {
                throw new Smb2DecodeException("more than 32 create contexts");
            }
            Wire.range(list, at, 16, "create context");
            long next = Wire.u32(list, at);
            int nameOff = Wire.u16(list, at + 4);
            int nameLen = Wire.u16(list, at + 6);
            int dataOff = Wire.u16(list, at + 10);
            long dataLen = Wire.u32(list, at + 12);
            long ctxLen = next == 0 ? list.limit() - at : next;
            if (next != 0 && ((next & 7) != 0 || next < 16 || at + next >= list.limit())) {
                throw new Smb2DecodeException("create context Next " + next);
            }
            if (nameLen == 0 || nameLen > 64 || nameOff < 16 || nameOff + nameLen > ctxLen) {
                throw new Smb2DecodeException("create context name at " + nameOff + " of " + nameLen);
            }
            if (dataLen > 0 && (dataOff < nameOff + nameLen || dataOff + dataLen > ctxLen)) {
                throw new Smb2DecodeException("create context data at " + dataOff + " of " + dataLen);
            }
            byte[] name = new byte[nameLen];
            list.get(at + nameOff, name);
            ByteBuffer data = Wire.slice(list, at + dataOff, dataLen, "create context data");
            out.add(new CreateContext(new String(name, StandardCharsets.ISO_8859_1), data));
            if (next == 0) {
                return out;
            }
            at += (int) next;
        }
    }

    /** Bytes {@link #writeList} writes for {@code contexts} from an 8-aligned start. */
    public static int listLength(List<CreateContext> contexts) {
        int n = 0;
        for (CreateContext c : contexts) {
            n = Wire.align8(n) + Wire.align8(16 + c.name().length()) + c.data().remaining();
        }
        return n;
    }

    /**
     * Writes response contexts from {@code at} (8-aligned); returns the end. Each entry is a name and
     * its data.
     */
    public static int writeList(ByteBuffer m, int at, List<CreateContext> contexts) {
        int prev = -1;
        for (CreateContext c : contexts) {
            at = Wire.align8(at);
            if (prev >= 0) {
                m.putInt(prev, at - prev);
            }
            byte[] name = c.name().getBytes(StandardCharsets.ISO_8859_1);
            int dataOff = Wire.align8(16 + name.length);
            int dataLen = c.data().remaining();
            m.putInt(at, 0).putShort(at + 4, (short) 16).putShort(at + 6, (short) name.length).putShort(at + 8, (short) 0)
                    .putShort(at + 10, (short) (dataLen == 0 ? 0 : dataOff)).putInt(at + 12, dataLen);
            m.put(at + 16, name);
            for (int p = at + 16 + name.length; p < at + dataOff; p++) {
                m.put(p, (byte) 0);
            }
            m.put(at + dataOff, c.data(), c.data().position(), dataLen);
            prev = at;
            at = at + dataOff + dataLen;
        }
        return at;
    }

    public static ByteBuffer bytes(byte[] b) {
        return ByteBuffer.wrap(b).order(java.nio.ByteOrder.LITTLE_ENDIAN);
    }
}
