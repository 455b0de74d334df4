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
 * NFS and MOUNT ports: a listing, a recursive listing, a file written and read back, over NFSv3;
 * then the same over NFSv4.0 (libnfs's NFSv4), whose COMPOUNDs go to a corpus of their own.
 * Calls become seeds named by program, version and procedure.
 */
public final class NfsSeeds {
    private NfsSeeds() {
    }

    /** Records the MOUNT and NFSv3 calls into {@code out}, the NFSv4.0 COMPOUNDs into {@code out4}. */
    public static void record(Path work, Path out, Path out4) throws IOException, InterruptedException {
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
        // NFSv4.0: no MOUNT; the path is walked from the pseudo-filesystem's root. Debian's libnfs
        // fails its own NFSv4 WRITEs of about 3,950 bytes or more, so the file written is smaller.
        Path small = Files.write(work.resolve("small.bin"), java.util.Arrays.copyOf(data, 3000));
        try (ServerProcess s = Servers.rdmagate(Files.createDirectories(work.resolve("v4")), export);
                RecordingProxy nfs = new RecordingProxy(s.nfs(), RecordingProxy.Framing.RPC_RECORD_MARKING)) {
            String args = "?version=4&nfsport=" + nfs.port();
            String base = "nfs://127.0.0.1" + s.mountPath();
            Seeds.run(log, "nfs-ls", base + "/" + args);
            Seeds.run(log, "nfs-ls", "-R", base + "/" + args);
            Seeds.run(log, "nfs-cp", small.toString(), base + "/seed4.bin" + args);
            Seeds.run(log, "nfs-cp", base + "/seed.bin" + args, work.resolve("back4.bin").toString());
            Seeds.run(log, "nfs-cat", base + "/dir/hello.txt" + args);
            Seeds.write(out4, nfs.messages(), NfsSeeds::name);
        }
    }

    /**
     * A call's name: {@code PROGRAM-vVERSION-procPROC}; an NFSv4 COMPOUND's is
     * {@code nfs-v4.MINOR} and its operations up to the first that is not SEQUENCE, PUTFH or
     * PUTROOTFH ({@code nfs-v4.1-op53-op22-op9}: SEQUENCE, PUTFH, GETATTR).
     */
    public static String name(byte[] m) {
        ByteBuffer b = ByteBuffer.wrap(m);
        if (m.length < 24 || b.getInt(4) != 0) {
            return "other";
        }
        String program = switch (b.getInt(12)) {
            case 100003 -> "nfs";
            case 100005 -> "mount";
            default -> Integer.toString(b.getInt(12));
        };
        if (b.getInt(12) == 100003 && b.getInt(16) == 4 && b.getInt(20) == 1) {
            String ops = compound(b);
            if (ops != null) {
                return ops;
            }
        }
        return program + "-v" + b.getInt(16) + "-proc" + b.getInt(20);
    }

    /** RFC 5531 §9 credential and verifier, then COMPOUND4args (RFC 8881 §16.2.1); null if cut. */
    private static String compound(ByteBuffer b) {
        int at = 24;
        for (int i = 0; i < 2; i++) { // credential, verifier: flavor, length, body padded to 4
            if (at + 8 > b.limit() || b.getInt(at + 4) < 0 || b.getInt(at + 4) > 400) {
                return null;
            }
            at += 8 + (b.getInt(at + 4) + 3 & ~3);
        }
        if (at + 4 > b.limit() || b.getInt(at) < 0 || b.getInt(at) > 1024) {
            return null;
        }
        at += 4 + (b.getInt(at) + 3 & ~3); // tag
        if (at + 12 > b.limit()) {
            return null;
        }
        int minor = b.getInt(at);
        int count = b.getInt(at + 4);
        StringBuilder name = new StringBuilder("nfs-v4." + minor);
        at += 8;
        // the operations up to the first that is not SEQUENCE, PUTFH or PUTROOTFH, whose arguments are skipped
        for (int i = 0; i < count && i < 4 && at + 4 <= b.limit(); i++) {
            int op = b.getInt(at);
            name.append("-op").append(op);
            at += 4;
            if (op == 53) { // SEQUENCE4args: session id, sequence id, slot, highest slot, cachethis
                at += 32;
            } else if (op == 22 && at + 4 <= b.limit() && b.getInt(at) >= 0 && b.getInt(at) <= 128) { // PUTFH
                at += 4 + (b.getInt(at) + 3 & ~3);
            } else if (op != 24) { // PUTROOTFH has none
                break;
            }
        }
        return name.toString();
    }
}
