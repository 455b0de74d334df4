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
import java.util.List;
import java.util.Random;

/**
 * Samba's smbclient against rdmagate through a {@link RecordingProxy}: a session that lists,
 * writes, reads, queries, makes and removes a directory, renames, sets and clears the read-only
 * attribute, deletes and asks for the volume's size, then the share list (srvsvc over IPC$).
 * Its SMB2 requests become seeds named by command. {@link #recordSmbtorture} records Samba's
 * smbtorture the same way: the requests of its SMB2 test groups, a bounded selection of them
 * ({@link Seeds#select}).
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

    /**
     * A frame's name: its commands joined by {@code +} (a compound names each), QUERY_INFO and
     * SET_INFO with their info type and class ({@code QUERY_INFO-1.18}), IOCTL with its control
     * code ({@code IOCTL-0x140204}); {@code other} for what is not SMB2 (a transform, SMB1).
     */
    /** smbtorture's groups recorded: what they send covers every command and most info classes. */
    static final List<String> TORTURE_GROUPS = List.of("smb2.getinfo", "smb2.setinfo", "smb2.create", "smb2.dir",
            "smb2.lock", "smb2.ioctl", "smb2.compound", "smb2.lease", "smb2.rename", "smb2.read", "smb2.rw",
            "smb2.durable-open", "smb2.credits", "smb2.timestamps", "smb2.delete-on-close-perms", "smb2.acls",
            "smb2.streams", "smb2.notify.valid-req", "smb2.sharemode", "smb2.session");
    /** How long one group may run: what it sent until then is kept either way. */
    private static final int TORTURE_GROUP_SECONDS = 30;

    /**
     * Runs each of {@link #TORTURE_GROUPS} against rdmagate through a {@link RecordingProxy} and
     * keeps a bounded selection of what smbtorture sent. A group's failures are the conformance
     * table's business (docs/conformance.md), not the recorder's: only what was sent matters here.
     */
    public static void recordSmbtorture(Path work, Path out) throws IOException, InterruptedException {
        Path export = Files.createDirectories(work.resolve("torture-export"));
        String password = "seeds-" + Long.toHexString(new Random().nextLong());
        Path log = work.resolve("smbtorture.log");
        try (SmbServerProcess s = SmbServers.rdmagate(Files.createDirectories(work.resolve("torture")), export, password);
                RecordingProxy proxy = new RecordingProxy(new InetSocketAddress(InetAddress.getLoopbackAddress(),
                        s.port()), RecordingProxy.Framing.SMB_DIRECT_TCP)) {
            for (String group : TORTURE_GROUPS) {
                Process p = new ProcessBuilder("smbtorture", "//127.0.0.1/" + s.share(), "-p",
                        Integer.toString(proxy.port()), "-U", s.user() + "%" + password,
                        "--option=torture:sharedelay=100000", group).redirectErrorStream(true)
                        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
                if (!p.waitFor(TORTURE_GROUP_SECONDS, java.util.concurrent.TimeUnit.SECONDS)) {
                    p.destroyForcibly().waitFor();
                }
                System.out.printf("smbtorture %s: %d requests recorded so far%n", group, proxy.messages().size());
            }
            Seeds.write(out, Seeds.select(proxy.messages(), SmbSeeds::name), SmbSeeds::name);
        }
    }

    public static String name(byte[] m) {
        ByteBuffer b = ByteBuffer.wrap(m).order(ByteOrder.LITTLE_ENDIAN);
        StringBuilder out = new StringBuilder();
        int at = 0;
        for (int i = 0; i < 8 && at >= 0 && at + 64 <= m.length && b.getInt(at) == 0x424D53FE; i++) {
            int command = b.getShort(at + 12) & 0xffff;
            out.append(out.isEmpty() ? "" : "+").append(Smb2Command.name(command));
            if ((command == Smb2Command.QUERY_INFO || command == Smb2Command.SET_INFO) && at + 67 <= m.length) {
                out.append('-').append(b.get(at + 66) & 0xff).append('.').append(b.get(at + 67) & 0xff);
            } else if (command == Smb2Command.IOCTL && at + 72 <= m.length) {
                out.append("-0x").append(Integer.toHexString(b.getInt(at + 68)));
            }
            int next = b.getInt(at + 20);
            at = next <= 0 ? -1 : at + next;
        }
        return out.isEmpty() ? "other" : out.toString();
    }
}
