package io.rdmagate.smb.mssmb2;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The durable handle create contexts (MS-SMB2 2.2.13.2.3, .4, .11, .12 and 2.2.14.2.3, .12).
 *
 * <p>Accepts: DHnQ of 16 bytes, DHnC of 16 (the FileId), DH2Q of 32 (Timeout, Flags, Reserved,
 * CreateGuid), DH2C of 36 (FileId, CreateGuid, Flags). Refuses any other length with
 * STATUS_INVALID_PARAMETER (MS-SMB2 3.3.5.9.6, .7, .10, .12).
 */
public final class Smb2Durable {
    /** SMB2_DHANDLE_FLAG_PERSISTENT (2.2.13.2.11). */
    public static final int FLAG_PERSISTENT = 0x2;

    private Smb2Durable() {
    }

    /** A DH2Q request: the client's timeout in milliseconds (0: the server chooses), flags, CreateGuid. */
    public record V2Request(int timeoutMillis, int flags, byte[] createGuid) {
    }

    /** A DH2C request: the open to reconnect, its CreateGuid, flags. */
    public record V2Reconnect(FileId fileId, byte[] createGuid, int flags) {
    }

    private static ByteBuffer le(ByteBuffer b) {
        return b.duplicate().order(ByteOrder.LITTLE_ENDIAN);
    }

    private static void length(ByteBuffer b, int want, String name) throws Smb2DecodeException {
        if (b.remaining() != want) {
            throw new Smb2DecodeException(name + " context of " + b.remaining() + " bytes, not " + want);
        }
    }

    /** DHnQ (2.2.13.2.3): 16 reserved bytes. */
    public static void checkV1Request(ByteBuffer data) throws Smb2DecodeException {
        length(data, 16, CreateContext.DHNQ);
    }

    /** DHnC (2.2.13.2.4): the FileId of the open to reconnect. */
    public static FileId v1Reconnect(ByteBuffer data) throws Smb2DecodeException {
        length(data, 16, CreateContext.DHNC);
        ByteBuffer b = le(data);
        int p = b.position();
        return new FileId(b.getLong(p), b.getLong(p + 8));
    }

    /** DH2Q (2.2.13.2.11). */
    public static V2Request v2Request(ByteBuffer data) throws Smb2DecodeException {
        length(data, 32, CreateContext.DH2Q);
        ByteBuffer b = le(data);
        int p = b.position();
        byte[] guid = new byte[16];
        b.get(p + 16, guid);
        return new V2Request(b.getInt(p), b.getInt(p + 4), guid);
    }

    /** DH2C (2.2.13.2.12). */
    public static V2Reconnect v2Reconnect(ByteBuffer data) throws Smb2DecodeException {
        length(data, 36, CreateContext.DH2C);
        ByteBuffer b = le(data);
        int p = b.position();
        byte[] guid = new byte[16];
        b.get(p + 16, guid);
        return new V2Reconnect(new FileId(b.getLong(p), b.getLong(p + 8)), guid, b.getInt(p + 32));
    }

    /** The DHnQ response (2.2.14.2.3): 8 reserved bytes. */
    public static ByteBuffer v1Response() {
        return ByteBuffer.allocate(8);
    }

    /** The DH2Q response (2.2.14.2.12): the timeout granted and the flags. */
    public static ByteBuffer v2Response(int timeoutMillis, int flags) {
        ByteBuffer b = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(timeoutMillis).putInt(flags);
        return b.flip();
    }
}
