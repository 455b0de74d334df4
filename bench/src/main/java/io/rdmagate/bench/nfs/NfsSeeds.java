package io.rdmagate.bench.nfs;

import io.rdmagate.bench.RecordingProxy;
import io.rdmagate.bench.Seeds;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * libnfs's command-line clients against rdmagate through a {@link RecordingProxy} on each of the
 * NFS and MOUNT ports: a listing, a recursive listing, a file written and read back, over NFSv3.
 * Their MOUNT and NFS calls become seeds named by program, version and procedure. (libnfs's
 * NFSv4 speaks minor version 0, which rdmagate does not serve.)
 */
public final class NfsSeeds {
    private NfsSeeds() {
    }

    public static void record(Path work, Path out) throws IOException, InterruptedException {
        Path export = Files.createDirectories(work.resolve("export"));
        Files.createDirectories(export.resolve("dir"));
        Files.writeString(export.resolve("dir/hello.txt"), "hello from the seed recorder\n");
        byte[] data = new byte[30_000];
        new Random(2049).nextBytes(data);
        Path local = Files.write(work.resolve("local.bin"), data);
        Path log = work.resolve("libnfs.log");
        try (ServerProcess s = Servers.rdmagate(work, export);
                RecordingProxy nfs = new RecordingProxy(s.nfs(), RecordingProxy.Framing.RPC_RECORD_MARKING);
                RecordingProxy mount = new RecordingProxy(s.mount(), RecordingProxy.Framing.RPC_RECORD_MARKING)) {
            String args = "?version=3&nfsport=" + nfs.port() + "&mountport=" + mount.port();
            String base = "nfs://127.0.0.1" + s.mountPath();
            Seeds.run(log, "nfs-ls", base + args);
            Seeds.run(log, "nfs-ls", "-R", base + args);
            Seeds.run(log, "nfs-cp", local.toString(), base + "/seed.bin" + args);
            Seeds.run(log, "nfs-cp", base + "/seed.bin" + args, work.resolve("back.bin").toString());
            Seeds.run(log, "nfs-cat", base + "/dir/hello.txt" + args);
            List<RecordingProxy.Message> all = new ArrayList<>(mount.messages());
            all.addAll(nfs.messages());
            Seeds.write(out, all, NfsSeeds::name);
        }
    }

    private static String name(byte[] m) {
        ByteBuffer b = ByteBuffer.wrap(m);
        if (m.length < 24 || b.getInt(4) != 0) {
            return "other";
        }
        String program = switch (b.getInt(12)) {
            case 100003 -> "nfs";
            case 100005 -> "mount";
            default -> Integer.toString(b.getInt(12));
        };
        return program + "-v" + b.getInt(16) + "-proc" + b.getInt(20);
    }
}
