package io.rdmagate.bench.smb;

import com.hierynomus.msdtyp.AccessMask;
import com.hierynomus.mssmb2.SMB2CreateDisposition;
import com.hierynomus.mssmb2.SMB2Dialect;
import com.hierynomus.mssmb2.SMB2ShareAccess;
import com.hierynomus.smbj.SMBClient;
import com.hierynomus.smbj.SmbConfig;
import com.hierynomus.smbj.auth.AuthenticationContext;
import com.hierynomus.smbj.connection.Connection;
import com.hierynomus.smbj.session.Session;
import com.hierynomus.smbj.share.DiskShare;
import com.hierynomus.smbj.share.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * smbj clients of the lab's soak ({@code interop/lab/lab.sh soak}), on the host, against the
 * gateway running in the guest:
 * {@code SmbjSoakClient PORT SHARE USER PASSWORD DIR WORKERS NAME STOP_FILE}. Each worker has a
 * connection and session of its own and, until {@code STOP_FILE} exists, writes a file of its own
 * in {@code DIR} whole with random content (64 KiB to 1 MiB), reads it back through a second
 * open and compares, and every tenth round makes, lists and removes a directory of eight small
 * files. A failed call or a difference is an error, and the worker reconnects. Each worker
 * prints {@code WORKER NAME-N smbj rounds R errors E}, as the guest's workers do.
 */
public final class SmbjSoakClient {
    private SmbjSoakClient() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 8) {
            throw new IllegalArgumentException("usage: SmbjSoakClient PORT SHARE USER PASSWORD DIR WORKERS NAME STOP_FILE");
        }
        int port = Integer.parseInt(args[0]);
        int workers = Integer.parseInt(args[5]);
        Path stop = Path.of(args[7]);
        List<Thread> threads = new ArrayList<>();
        for (int w = 1; w <= workers; w++) {
            String id = args[6] + "-" + w;
            threads.add(Thread.ofPlatform().name(id).start(() -> worker(port, args[1], args[2], args[3], args[4], id, stop)));
        }
        for (Thread t : threads) {
            t.join();
        }
    }

    private static void worker(int port, String shareName, String user, String password, String dir, String id, Path stop) {
        SplittableRandom rnd = new SplittableRandom(id.hashCode());
        long rounds = 0;
        long errors = 0;
        SmbConfig config = SmbConfig.builder().withDialects(SMB2Dialect.SMB_3_1_1).withTimeout(120, TimeUnit.SECONDS)
                .build();
        String file = dir + "\\" + id + ".bin";
        while (!Files.exists(stop)) {
            try (SMBClient client = new SMBClient(config);
                    Connection conn = client.connect("127.0.0.1", port);
                    Session session = conn.authenticate(new AuthenticationContext(user, password.toCharArray(), ""));
                    DiskShare share = (DiskShare) session.connectShare(shareName)) {
                while (!Files.exists(stop)) {
                    byte[] data = new byte[(1 + rnd.nextInt(16)) * 65536];
                    rnd.nextBytes(data);
                    try (File f = share.openFile(file, EnumSet.of(AccessMask.GENERIC_WRITE), null, SMB2ShareAccess.ALL,
                            SMB2CreateDisposition.FILE_OVERWRITE_IF, null)) {
                        f.write(data, 0);
                        f.flush();
                    }
                    byte[] back = new byte[data.length];
                    try (File f = share.openFile(file, EnumSet.of(AccessMask.GENERIC_READ), null, SMB2ShareAccess.ALL,
                            SMB2CreateDisposition.FILE_OPEN, null)) {
                        int n = 0;
                        while (n < back.length) {
                            int r = f.read(back, n, n, back.length - n);
                            if (r <= 0) {
                                break;
                            }
                            n += r;
                        }
                    }
                    if (!Arrays.equals(data, back)) {
                        errors++;
                        System.out.println("ERROR " + id + " read " + file + ": differs from what was written");
                    }
                    if (rounds % 10 == 0) {
                        smallFiles(share, dir + "\\dir-" + id, id);
                    }
                    rounds++;
                }
            } catch (Exception e) {
                errors++;
                System.out.println("ERROR " + id + " " + e);
            }
        }
        System.out.println("WORKER " + id + " smbj rounds " + rounds + " errors " + errors);
    }

    /** A directory of eight small files made, listed (eight entries) and removed. */
    private static void smallFiles(DiskShare share, String d, String id) throws Exception {
        share.mkdir(d);
        for (int k = 1; k <= 8; k++) {
            try (File f = share.openFile(d + "\\f" + k, EnumSet.of(AccessMask.GENERIC_WRITE), null, SMB2ShareAccess.ALL,
                    SMB2CreateDisposition.FILE_CREATE, null)) {
                f.write((id + " " + k + "\n").getBytes(java.nio.charset.StandardCharsets.UTF_8), 0);
            }
        }
        long n = share.list(d).stream().filter(i -> !i.getFileName().equals(".") && !i.getFileName().equals("..")).count();
        if (n != 8) {
            throw new java.io.IOException(d + " lists " + n + " entries, not 8");
        }
        share.rmdir(d, true);
    }
}
