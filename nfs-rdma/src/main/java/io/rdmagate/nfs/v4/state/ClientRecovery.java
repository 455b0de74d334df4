package io.rdmagate.nfs.v4.state;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.Set;

/**
 * The clients that may reclaim after a restart (RFC 8881 §8.4.2.1), kept in the state directory as
 * knfsd keeps them in its recovery directory: one owner id (co_ownerid, hex) per line, rewritten
 * whole through a temporary file, synced and renamed, whenever the set changes. A file that cannot
 * be read is an error at start, not an empty set (clients would lose their state silently).
 */
public final class ClientRecovery {
    /** Keeps nothing: no client reclaims after a restart. */
    public static final ClientRecovery NONE = new ClientRecovery(null);

    private final Path file;

    private ClientRecovery(Path file) {
        this.file = file;
    }

    /** The record at {@code file} (created on the first write). */
    public static ClientRecovery at(Path file) {
        return new ClientRecovery(file);
    }

    /** The owners recorded by the previous run. */
    public Set<ByteBuffer> load() throws IOException {
        Set<ByteBuffer> out = new HashSet<>();
        if (file == null || !Files.exists(file)) {
            return out;
        }
        for (String line : Files.readAllLines(file, StandardCharsets.US_ASCII)) {
            if (!line.isBlank()) {
                try {
                    out.add(ByteBuffer.wrap(HexFormat.of().parseHex(line.strip())));
                } catch (IllegalArgumentException e) {
                    throw new IOException(file + ": not an owner id: " + line, e);
                }
            }
        }
        return out;
    }

    /** Replaces the record with {@code owners}. */
    public void store(Set<ByteBuffer> owners) throws IOException {
        if (file == null) {
            return;
        }
        StringBuilder b = new StringBuilder();
        for (ByteBuffer o : owners) {
            byte[] bytes = new byte[o.remaining()];
            o.duplicate().get(bytes);
            b.append(HexFormat.of().formatHex(bytes)).append('\n');
        }
        Files.createDirectories(file.getParent());
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            ch.write(ByteBuffer.wrap(b.toString().getBytes(StandardCharsets.US_ASCII)));
            ch.force(true);
        }
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }
}
