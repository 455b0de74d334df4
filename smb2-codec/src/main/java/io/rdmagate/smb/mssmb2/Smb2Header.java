package io.rdmagate.smb.mssmb2;

import java.nio.ByteBuffer;

/**
 * The 64-byte SMB2 packet header, sync and async forms (MS-SMB2 2.2.1.1, 2.2.1.2), as static
 * accessors over a little-endian buffer whose index 0 is the header: a flyweight, no copy.
 *
 * <p>Accepts: ProtocolId 0xFE 'S' 'M' 'B' and StructureSize 64. Refuses (by {@link #check}) anything
 * shorter than 64 bytes or with another id or size: MS-SMB2 3.3.5.2.6 says to disconnect.
 */
public final class Smb2Header {
    public static final int SIZE = 64;
    public static final int PROTOCOL_ID = 0x424D53FE;

    public static final int FLAGS_SERVER_TO_REDIR = 0x1;
    public static final int FLAGS_ASYNC_COMMAND = 0x2;
    public static final int FLAGS_RELATED_OPERATIONS = 0x4;
    public static final int FLAGS_SIGNED = 0x8;
    public static final int FLAGS_PRIORITY_MASK = 0x70;
    public static final int FLAGS_DFS_OPERATIONS = 0x10000000;
    public static final int FLAGS_REPLAY_OPERATION = 0x20000000;

    static final int CREDIT_CHARGE = 6;
    static final int STATUS = 8;
    static final int COMMAND = 12;
    static final int CREDITS = 14;
    static final int FLAGS = 16;
    static final int NEXT_COMMAND = 20;
    static final int MESSAGE_ID = 24;
    static final int ASYNC_ID = 32;
    static final int TREE_ID = 36;
    static final int SESSION_ID = 40;
    public static final int SIGNATURE = 48;
    public static final int SIGNATURE_SIZE = 16;

    private Smb2Header() {
    }

    /** MS-SMB2 3.3.5.2.6: a message that is not an SMB2 header closes the connection. */
    public static boolean check(ByteBuffer m) {
        return m.limit() >= SIZE && m.getInt(0) == PROTOCOL_ID && Wire.u16(m, 4) == SIZE;
    }

    public static int creditCharge(ByteBuffer m) {
        return Wire.u16(m, CREDIT_CHARGE);
    }

    public static int status(ByteBuffer m) {
        return m.getInt(STATUS);
    }

    public static int command(ByteBuffer m) {
        return Wire.u16(m, COMMAND);
    }

    public static int creditRequest(ByteBuffer m) {
        return Wire.u16(m, CREDITS);
    }

    public static int flags(ByteBuffer m) {
        return m.getInt(FLAGS);
    }

    public static boolean isAsync(ByteBuffer m) {
        return (flags(m) & FLAGS_ASYNC_COMMAND) != 0;
    }

    public static boolean isRelated(ByteBuffer m) {
        return (flags(m) & FLAGS_RELATED_OPERATIONS) != 0;
    }

    public static boolean isSigned(ByteBuffer m) {
        return (flags(m) & FLAGS_SIGNED) != 0;
    }

    public static long nextCommand(ByteBuffer m) {
        return Wire.u32(m, NEXT_COMMAND);
    }

    public static long messageId(ByteBuffer m) {
        return m.getLong(MESSAGE_ID);
    }

    public static long asyncId(ByteBuffer m) {
        return m.getLong(ASYNC_ID);
    }

    /** Sync form only. */
    public static int treeId(ByteBuffer m) {
        return m.getInt(TREE_ID);
    }

    public static long sessionId(ByteBuffer m) {
        return m.getLong(SESSION_ID);
    }

    /**
     * Writes a response header (sync form unless {@code asyncId} is not 0) at index 0 of {@code m}.
     * The signature is zero; the signer fills it.
     */
    public static void writeResponse(ByteBuffer m, int command, int status, int creditCharge, int credits, int flags,
            long messageId, long asyncId, int treeId, long sessionId) {
        m.putInt(0, PROTOCOL_ID);
        m.putShort(4, (short) SIZE);
        m.putShort(CREDIT_CHARGE, (short) creditCharge);
        m.putInt(STATUS, status);
        m.putShort(COMMAND, (short) command);
        m.putShort(CREDITS, (short) credits);
        int f = flags | FLAGS_SERVER_TO_REDIR | (asyncId != 0 ? FLAGS_ASYNC_COMMAND : 0);
        m.putInt(FLAGS, f);
        m.putInt(NEXT_COMMAND, 0);
        m.putLong(MESSAGE_ID, messageId);
        if (asyncId != 0) {
            m.putLong(ASYNC_ID, asyncId);
        } else {
            m.putInt(32, 0);
            m.putInt(TREE_ID, treeId);
        }
        m.putLong(SESSION_ID, sessionId);
        for (int i = 0; i < SIGNATURE_SIZE; i++) {
            m.put(SIGNATURE + i, (byte) 0);
        }
    }

    /** Writes a request header; for tests and clients. */
    public static void writeRequest(ByteBuffer m, int command, int creditCharge, int credits, int flags, long messageId,
            int treeId, long sessionId) {
        writeResponse(m, command, 0, creditCharge, credits, flags, messageId, 0, treeId, sessionId);
        m.putInt(FLAGS, flags);
    }

    public static void setNextCommand(ByteBuffer m, int next) {
        m.putInt(NEXT_COMMAND, next);
    }

    public static void setFlags(ByteBuffer m, int flags) {
        m.putInt(FLAGS, flags);
    }

    public static void setStatus(ByteBuffer m, int status) {
        m.putInt(STATUS, status);
    }
}
