package io.rdmagate.smb.server;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Runs the test server outside JUnit for smbtorture (src/test/torture/run-smbtorture.sh):
 * {@code TortureServer EXPORT_DIR STATE_DIR PORT}; share "data", user tester / Secret-123, on 127.0.0.1.
 * Prints "ready PORT" when it listens and runs until killed.
 */
public final class TortureServer {
    private TortureServer() {
    }

    public static void main(String[] args) throws Exception {
        Path export = Files.createDirectories(Path.of(args[0]));
        Path state = Files.createDirectories(Path.of(args[1]));
        try (TestServer s = new TestServer(export, state, false, false, Integer.parseInt(args[2]))) {
            System.out.println("ready " + s.port());
            System.out.flush();
            Thread.currentThread().join();
        }
    }
}
