package io.rdmagate.bench.smb;

import io.rdmagate.bench.RecordingProxy;
import io.rdmagate.bench.Seeds;
import io.rdmagate.smb.mssmb2.Smb2Command;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;

/**
 * Samba's smbclient against rdmagate through a {@link RecordingProxy}: a session that lists,
 * writes, reads, queries, makes and removes a directory, renames, sets and clears the read-only
 * attribute, deletes and asks for the volume's size, then the share list (srvsvc over IPC$).
 * Its SMB2 requests become seeds named by command.
 */
public final class SmbSeeds {
    private SmbSeeds() {
    }

    public static void record(Path work, Path out) throws IOException, InterruptedException {
        Path export = Files.createDirectories(work.resolve("export"));
        Files.writeString(export.resolve("hello.txt"), "hello from the seed recorder\n");
        byte[] data = new byte[20_000];
        new Random(445).nextBytes(data);
        Path local = Files.write(work.resolve("local.bin"), data);
        String password = "seeds-" + Long.toHexString(new Random().nextLong());
        Path log = work.resolve("smbclient.log");
        try (SmbServerProcess s = SmbServers.rdmagate(work, export, password);
                RecordingProxy proxy = new RecordingProxy(new InetSocketAddress(InetAddress.getLoopbackAddress(),
                        s.port()), RecordingProxy.Framing.SMB_DIRECT_TCP)) {
            String port = Integer.toString(proxy.port());
            String user = s.user() + "%" + password;
            Seeds.run(log, "smbclient", "//127.0.0.1/" + s.share(), "-p", port, "-U", user, "-m", "SMB3",
                    "-c", "ls; put " + local + " seed.bin; get seed.bin " + work.resolve("back.bin")
                            + "; allinfo seed.bin; mkdir seed-dir; ls seed-dir/*; rmdir seed-dir;"
                            + " rename seed.bin seed2.bin; setmode seed2.bin +r; setmode seed2.bin -r; del seed2.bin;"
                            + " volume; du");
            Seeds.run(log, "smbclient", "-L", "//127.0.0.1", "-p", port, "-U", user, "-m", "SMB3");
            Seeds.write(out, proxy.messages(), SmbSeeds::name);
        }
    }

    private static String name(byte[] m) {
        ByteBuffer b = ByteBuffer.wrap(m).order(ByteOrder.LITTLE_ENDIAN);
        if (m.length < 64 || b.getInt(0) != 0x424D53FE) {
            return "other";
        }
        return Smb2Command.name(b.getShort(12) & 0xffff);
    }
}
