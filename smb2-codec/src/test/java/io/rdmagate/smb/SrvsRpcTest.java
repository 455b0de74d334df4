package io.rdmagate.smb;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rdmagate.smb.msrpce.Ndr;
import io.rdmagate.smb.msrpce.RpcDecodeException;
import io.rdmagate.smb.msrpce.RpcPdu;
import io.rdmagate.smb.mssrvs.ShareInfo;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** DCE/RPC PDUs (C706, MS-RPCE) and MS-SRVS share enumeration, as smbclient -L sends them. */
class SrvsRpcTest {
    private static final List<ShareInfo.Entry> SHARES = List.of(new ShareInfo.Entry("data", ShareInfo.DISK, ""),
            new ShareInfo.Entry("IPC$", ShareInfo.IPC, "IPC Service"));

    private static ByteBuffer pdu(int type, int callId, byte[] body) {
        ByteBuffer b = ByteBuffer.allocate(16 + body.length).order(ByteOrder.LITTLE_ENDIAN);
        b.put((byte) 5).put((byte) 0).put((byte) type).put((byte) 3).putInt(0x10).putShort((short) (16 + body.length))
                .putShort((short) 0).putInt(callId).put(body);
        return b.flip();
    }

    private static byte[] bindBody(byte[] abs, int version, byte[] transfer, int transferVersion) {
        ByteBuffer b = ByteBuffer.allocate(12 + 44 + 20).order(ByteOrder.LITTLE_ENDIAN);
        b.putShort((short) 4280).putShort((short) 4280).putInt(0).put((byte) 1).put(new byte[3]);
        b.putShort((short) 0).put((byte) 1).put((byte) 0).put(abs).putShort((short) version).putShort((short) 0);
        b.put(transfer).putInt(transferVersion);
        return java.util.Arrays.copyOf(b.array(), b.position());
    }

    @Test
    void aBindOfSrvsvcWithNdrIsAcceptedAndAnotherInterfaceRejected() throws Exception {
        ByteBuffer f = pdu(RpcPdu.BIND, 7, bindBody(ShareInfo.SRVSVC_UUID, 3, RpcPdu.NDR_UUID, 2));
        assertEquals(f.limit(), RpcPdu.fragment(f));
        RpcPdu.Bind bind = RpcPdu.bind(f);
        assertEquals(1, bind.contexts().size());
        assertTrue(bind.contexts().getFirst().offersNdr20());
        assertTrue(bind.contexts().getFirst().is(ShareInfo.SRVSVC_UUID, 3));
        ByteBuffer ack = ByteBuffer.wrap(RpcPdu.bindAck(RpcPdu.BIND, 7, bind, "\\PIPE\\srvsvc",
                List.of(RpcPdu.Result.ACCEPT))).order(ByteOrder.LITTLE_ENDIAN);
        assertEquals(RpcPdu.BIND_ACK, RpcPdu.type(ack));
        assertEquals(7, RpcPdu.callId(ack));
        assertEquals(ack.limit(), Short.toUnsignedInt(ack.getShort(8)), "frag_length");
        RpcPdu.Bind other = RpcPdu.bind(pdu(RpcPdu.BIND, 8, bindBody(RpcPdu.uuid("12345778-1234-abcd-ef00-0123456789ab"),
                0, RpcPdu.NDR_UUID, 2)));
        assertTrue(!other.contexts().getFirst().is(ShareInfo.SRVSVC_UUID, 3));
    }

    @Test
    void netrShareEnumListsEveryShareAtLevel1() throws Exception {
        ByteBuffer stub = ByteBuffer.allocate(64).order(ByteOrder.LITTLE_ENDIAN);
        stub.putInt(0).putInt(1).flip(); // ServerName null, level 1
        byte[] out = ShareInfo.enumerate(new Ndr(stub), SHARES);
        ByteBuffer o = ByteBuffer.wrap(out).order(ByteOrder.LITTLE_ENDIAN);
        assertEquals(1, o.getInt(0), "level");
        assertEquals(2, o.getInt(12), "EntriesRead");
        String text = new String(out, StandardCharsets.UTF_16LE);
        assertTrue(text.contains("data") && text.contains("IPC$") && text.contains("IPC Service"), text);
        assertEquals(0, o.getInt(out.length - 4), "WERR_OK");
    }

    @Test
    void truncatedOrOversizedInputIsRefused() {
        ByteBuffer f = pdu(RpcPdu.BIND, 1, bindBody(ShareInfo.SRVSVC_UUID, 3, RpcPdu.NDR_UUID, 2));
        ByteBuffer cut = f.slice(0, 20).order(ByteOrder.LITTLE_ENDIAN);
        assertThrows(RpcDecodeException.class, () -> RpcPdu.fragment(cut), "frag_length beyond the bytes");
        ByteBuffer stub = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN);
        stub.putInt(1).putInt(100000).putInt(0).putInt(100000).flip(); // ServerName of 100,000 characters
        assertThrows(RpcDecodeException.class, () -> ShareInfo.enumerate(new Ndr(stub), SHARES));
        ByteBuffer empty = ByteBuffer.allocate(2).order(ByteOrder.LITTLE_ENDIAN);
        assertThrows(RpcDecodeException.class, () -> ShareInfo.getInfo(new Ndr(empty), SHARES));
        assertArrayEquals(new byte[] {(byte) 0xc8, 0x4f, 0x32, 0x4b}, java.util.Arrays.copyOf(ShareInfo.SRVSVC_UUID, 4));
    }
}
