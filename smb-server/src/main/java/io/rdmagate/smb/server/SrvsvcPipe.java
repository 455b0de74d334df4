package io.rdmagate.smb.server;

import io.rdmagate.smb.mserref.NtStatus;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The srvsvc pipe, enough for share enumeration (MS-SRVS 3.1.4.8 NetrShareEnum, 3.1.4.10
 * NetrShareGetInfo) over connection-oriented DCE/RPC (C706 chapter 12, MS-RPCE 2.2.2) with NDR
 * (C706 chapter 14), no authentication.
 *
 * <p>Accepts: little-endian fragments with rpc_vers 5.0, first+last flags set (no fragmented
 * requests), BIND/ALTER_CONTEXT offering the srvsvc interface v3.0 with NDR 2.0, REQUEST for opnums
 * 15 and 16 at levels 0, 1 and 2. Refuses: other transfer syntaxes (per context, as a
 * provider rejection), unknown opnums (a fault, nca_op_rng_error), malformed fragments
 * (STATUS_INVALID_PARAMETER on the WRITE or IOCTL that carried them).
 */
public final class SrvsvcPipe implements NamedPipe {
    static final byte[] SRVSVC_UUID = uuid("4b324fc8-1670-01d3-1278-5a47bf6ee188");
    static final byte[] NDR_UUID = uuid("8a885d04-1ceb-11c9-9fe8-08002b104860");
    static final byte[] BTFN_PREFIX = {0x2c, 0x1c, (byte) 0xb7, 0x6c, 0x12, (byte) 0x98, 0x40, 0x45};

    /** A share as NetrShareEnum reports it. */
    public record ShareEntry(String name, int type, String remark) {
    }

    private final List<ShareEntry> shares;
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private byte[] pending = new byte[0];
    private int pendingPos;

    public SrvsvcPipe(List<ShareEntry> shares) {
        this.shares = List.copyOf(shares);
    }

    static byte[] uuid(String s) {
        String h = s.replace("-", "");
        byte[] raw = java.util.HexFormat.of().parseHex(h);
        // DCE UUIDs are sent with the first three fields little-endian
        return new byte[] {raw[3], raw[2], raw[1], raw[0], raw[5], raw[4], raw[7], raw[6], raw[8], raw[9], raw[10],
            raw[11], raw[12], raw[13], raw[14], raw[15]};
    }

    @Override
    public synchronized void write(ByteBuffer data) throws SmbException {
        ByteBuffer b = data.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        while (b.remaining() > 0) {
            if (b.remaining() < 16) {
                throw new SmbException(NtStatus.INVALID_PARAMETER, "DCE/RPC fragment shorter than its header");
            }
            int at = b.position();
            int fragLen = b.getShort(at + 8) & 0xffff;
            if (b.get(at) != 5 || b.get(at + 1) != 0 || fragLen < 16 || fragLen > b.remaining()
                    || (b.get(at + 4) & 0xf0) != 0x10) {
                throw new SmbException(NtStatus.INVALID_PARAMETER, "malformed DCE/RPC fragment");
            }
            ByteBuffer frag = b.slice(at, fragLen).order(ByteOrder.LITTLE_ENDIAN);
            handle(frag);
            b.position(at + fragLen);
        }
        pending = concat(java.util.Arrays.copyOfRange(pending, pendingPos, pending.length), out.toByteArray());
        pendingPos = 0;
        out.reset();
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] r = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, r, a.length, b.length);
        return r;
    }

    @Override
    public synchronized byte[] read(int max) {
        int n = Math.min(max, pending.length - pendingPos);
        byte[] r = java.util.Arrays.copyOfRange(pending, pendingPos, pendingPos + n);
        pendingPos += n;
        return r;
    }

    @Override
    public synchronized boolean hasOutput() {
        return pendingPos < pending.length;
    }

    private void handle(ByteBuffer f) throws SmbException {
        int ptype = f.get(2) & 0xff;
        int flags = f.get(3) & 0xff;
        int callId = f.getInt(12);
        if ((flags & 0x3) != 0x3) {
            throw new SmbException(NtStatus.INVALID_PARAMETER, "fragmented DCE/RPC calls are not supported");
        }
        switch (ptype) {
            case 11, 14 -> bind(f, ptype, callId);
            case 0 -> request(f, callId);
            default -> throw new SmbException(NtStatus.INVALID_PARAMETER, "DCE/RPC packet type " + ptype);
        }
    }

    private void bind(ByteBuffer f, int ptype, int callId) throws SmbException {
        if (f.limit() < 28) {
            throw new SmbException(NtStatus.INVALID_PARAMETER, "short BIND");
        }
        int maxXmit = f.getShort(16) & 0xffff;
        int maxRecv = f.getShort(18) & 0xffff;
        int n = f.get(24) & 0xff;
        ByteBuffer results = ByteBuffer.allocate(4 + 24 * n).order(ByteOrder.LITTLE_ENDIAN);
        results.put((byte) n).put((byte) 0).putShort((short) 0);
        int at = 28;
        for (int i = 0; i < n; i++) {
            if (at + 24 > f.limit()) {
                throw new SmbException(NtStatus.INVALID_PARAMETER, "BIND context outside the fragment");
            }
            int nts = f.get(at + 2) & 0xff;
            byte[] abs = new byte[16];
            f.get(at + 4, abs);
            int absVer = f.getShort(at + 20) & 0xffff;
            boolean ok = false;
            boolean btfn = false;
            int p = at + 24;
            if (p + 20L * nts > f.limit()) {
                throw new SmbException(NtStatus.INVALID_PARAMETER, "BIND transfer syntaxes outside the fragment");
            }
            for (int k = 0; k < nts; k++) {
                byte[] ts = new byte[16];
                f.get(p + 20 * k, ts);
                if (java.util.Arrays.equals(ts, NDR_UUID) && f.getInt(p + 20 * k + 16) == 2) {
                    ok = true;
                }
                if (java.util.Arrays.equals(ts, 0, 8, BTFN_PREFIX, 0, 8)) {
                    btfn = true;
                }
            }
            if (btfn) {
                results.putShort((short) 3).putShort((short) 0).put(new byte[20]); // negotiate_ack, no features
            } else if (ok && java.util.Arrays.equals(abs, SRVSVC_UUID) && absVer == 3) {
                results.putShort((short) 0).putShort((short) 0).put(NDR_UUID).putInt(2);
            } else {
                results.putShort((short) 2).putShort((short) 2).put(new byte[20]);
            }
            at = p + 20 * nts;
        }
        ByteBuffer body = ByteBuffer.allocate(64 + results.position()).order(ByteOrder.LITTLE_ENDIAN);
        body.putShort((short) Math.min(maxXmit, 4280)).putShort((short) Math.min(maxRecv, 4280)).putInt(0x53f0);
        if (ptype == 11) {
            byte[] port = "\\PIPE\\srvsvc\0".getBytes(StandardCharsets.US_ASCII);
            body.putShort((short) port.length).put(port);
        } else {
            body.putShort((short) 0);
        }
        while (body.position() % 4 != 0) {
            body.put((byte) 0);
        }
        body.put(results.array(), 0, results.position());
        emit(ptype == 11 ? 12 : 15, callId, java.util.Arrays.copyOf(body.array(), body.position()));
    }

    private void emit(int ptype, int callId, byte[] body) {
        ByteBuffer h = ByteBuffer.allocate(16 + body.length).order(ByteOrder.LITTLE_ENDIAN);
        h.put((byte) 5).put((byte) 0).put((byte) ptype).put((byte) 3).putInt(0x10)
                .putShort((short) (16 + body.length)).putShort((short) 0).putInt(callId).put(body);
        out.writeBytes(h.array());
    }

    private void request(ByteBuffer f, int callId) throws SmbException {
        if (f.limit() < 24) {
            throw new SmbException(NtStatus.INVALID_PARAMETER, "short REQUEST");
        }
        int ctx = f.getShort(20) & 0xffff;
        int opnum = f.getShort(22) & 0xffff;
        ByteBuffer stub = f.slice(24, f.limit() - 24).order(ByteOrder.LITTLE_ENDIAN);
        Ndr r = new Ndr(stub);
        byte[] result;
        try {
            result = switch (opnum) {
                case 15 -> shareEnum(r);
                case 16 -> shareGetInfo(r);
                default -> null;
            };
        } catch (IndexOutOfBoundsException | IllegalArgumentException e) {
            throw new SmbException(NtStatus.INVALID_PARAMETER, "malformed srvsvc request stub");
        }
        if (result == null) {
            ByteBuffer fault = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN);
            fault.putInt(0).putShort((short) ctx).put((byte) 0).put((byte) 0).putInt(0x1c010002).putInt(0);
            emit(3, callId, fault.array());
            return;
        }
        ByteBuffer body = ByteBuffer.allocate(8 + result.length).order(ByteOrder.LITTLE_ENDIAN);
        body.putInt(result.length).putShort((short) ctx).put((byte) 0).put((byte) 0).put(result);
        emit(2, callId, body.array());
    }

    /** NDR reader over a request stub: 4-byte alignment of every primitive read here. */
    static final class Ndr {
        final ByteBuffer b;

        Ndr(ByteBuffer b) {
            this.b = b;
        }

        int u32() {
            b.position((b.position() + 3) & ~3);
            return b.getInt();
        }

        String string() {
            int max = u32();
            u32();
            int actual = u32();
            if (actual < 0 || actual > max || actual > 1024) {
                throw new IllegalArgumentException("string of " + actual);
            }
            byte[] c = new byte[actual * 2];
            b.get(c);
            String s = new String(c, StandardCharsets.UTF_16LE);
            return s.endsWith("\0") ? s.substring(0, s.length() - 1) : s;
        }

        void uniqueString() {
            if (u32() != 0) {
                string();
            }
        }
    }

    /** NDR writer for replies. */
    static final class NdrOut {
        final ByteBuffer b = ByteBuffer.allocate(65536).order(ByteOrder.LITTLE_ENDIAN);
        int ref = 0x20000;

        NdrOut u32(int v) {
            while (b.position() % 4 != 0) {
                b.put((byte) 0);
            }
            b.putInt(v);
            return this;
        }

        NdrOut ptr() {
            return u32(ref += 4);
        }

        NdrOut string(String s) {
            byte[] c = (s + "\0").getBytes(StandardCharsets.UTF_16LE);
            u32(c.length / 2).u32(0).u32(c.length / 2);
            b.put(c);
            return this;
        }

        byte[] bytes() {
            while (b.position() % 4 != 0) {
                b.put((byte) 0);
            }
            return java.util.Arrays.copyOf(b.array(), b.position());
        }
    }

    private void info(NdrOut o, ShareEntry s, int level) {
        o.ptr();
        if (level >= 1) {
            o.u32(s.type()).ptr();
        }
        if (level == 2) {
            o.u32(0).u32(-1).u32(0).ptr().ptr();
        }
    }

    private void infoStrings(NdrOut o, ShareEntry s, int level) {
        o.string(s.name());
        if (level >= 1) {
            o.string(s.remark());
        }
        if (level == 2) {
            o.string("C:\\");
            o.string("");
        }
    }

    // MS-SRVS 3.1.4.8 NetrShareEnum
    private byte[] shareEnum(Ndr r) {
        r.uniqueString();
        int level = r.u32();
        NdrOut o = new NdrOut();
        if (level != 0 && level != 1 && level != 2) {
            o.u32(level).u32(level).u32(0).u32(0).u32(0).u32(0).u32(0x7C);
            return o.bytes();
        }
        o.u32(level).u32(level).ptr();
        o.u32(shares.size()).ptr().u32(shares.size());
        for (ShareEntry s : shares) {
            info(o, s, level);
        }
        for (ShareEntry s : shares) {
            infoStrings(o, s, level);
        }
        o.u32(shares.size()).u32(0).u32(0);
        return o.bytes();
    }

    // MS-SRVS 3.1.4.10 NetrShareGetInfo
    private byte[] shareGetInfo(Ndr r) {
        r.uniqueString();
        String name = r.string();
        int level = r.u32();
        NdrOut o = new NdrOut();
        ShareEntry found = null;
        for (ShareEntry s : shares) {
            if (s.name().equalsIgnoreCase(name)) {
                found = s;
            }
        }
        if (found == null || level > 2) {
            o.u32(level).u32(0).u32(found == null ? 0x906 : 0x7C); // NERR_NetNameNotFound, WERR_INVALID_LEVEL
            return o.bytes();
        }
        o.u32(level).ptr();
        info(o, found, level);
        infoStrings(o, found, level);
        o.u32(0);
        return o.bytes();
    }
}
