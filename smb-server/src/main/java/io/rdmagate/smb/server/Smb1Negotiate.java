package io.rdmagate.smb.server;

import io.rdmagate.smb.mssmb2.Smb2Command;
import io.rdmagate.smb.mssmb2.Smb2Dialect;
import io.rdmagate.smb.mssmb2.Smb2Header;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The SMB1 NEGOTIATE that old clients open with (MS-SMB2 3.3.5.3.1, MS-CIFS 2.2.4.52.1): answered
 * with an SMB2 NEGOTIATE response naming dialect 0x02FF when "SMB 2.???" is offered, or 0x0202 when
 * only "SMB 2.002" is. Nothing else of SMB1 is spoken.
 *
 * <p>Accepts: command 0x72, WordCount 0, dialect strings (0x02, NUL-terminated) within ByteCount.
 * Refuses (closes the connection): another command, a second negotiate, truncated strings, no SMB2
 * dialect offered.
 */
final class Smb1Negotiate {
    private Smb1Negotiate() {
    }

    static List<String> dialects(ByteBuffer m) {
        if (m.limit() < 35 || (m.get(4) & 0xff) != 0x72 || m.get(32) != 0) {
            return null;
        }
        int byteCount = m.getShort(33) & 0xffff;
        int end = 35 + byteCount;
        if (end > m.limit()) {
            return null;
        }
        List<String> out = new ArrayList<>();
        int at = 35;
        while (at < end) {
            if (m.get(at) != 0x02) {
                return null;
            }
            int z = at + 1;
            while (z < end && m.get(z) != 0) {
                z++;
            }
            if (z >= end) {
                return null;
            }
            byte[] s = new byte[z - at - 1];
            m.get(at + 1, s);
            out.add(new String(s, StandardCharsets.US_ASCII));
            at = z + 1;
        }
        return out;
    }

    static void handle(SmbConnection conn, ByteBuffer m) {
        List<String> d = conn.negotiated || conn.smb1Upgraded ? null : dialects(m);
        if (d == null) {
            conn.close("SMB1 message other than the first NEGOTIATE");
            return;
        }
        int dialect;
        if (d.contains("SMB 2.???")) {
            dialect = Smb2Dialect.SMB_2_WILDCARD;
        } else if (d.contains("SMB 2.002")) {
            dialect = Smb2Dialect.SMB_2_0_2;
        } else {
            conn.close("SMB1 client offers no SMB2 dialect");
            return;
        }
        conn.smb1Upgraded = true;
        Ctx c = new Ctx(conn, ByteBuffer.allocate(Smb2Header.SIZE).order(ByteOrder.LITTLE_ENDIAN), false, true);
        ByteBuffer out = io.rdmagate.smb.server.command.Negotiate.response(c, dialect, List.of());
        conn.window.receive(0, 1); // MS-SMB2 3.3.5.3.1: the SMB1 NEGOTIATE took MessageId 0; the next is 1
        Smb2Header.writeResponse(out, Smb2Command.NEGOTIATE, 0, 0, conn.grant(1), 0, 0, 0, 0, 0);
        if (dialect == Smb2Dialect.SMB_2_0_2) {
            conn.dialect = dialect;
            conn.negotiated = true;
        }
        conn.sendRaw(out);
    }
}
