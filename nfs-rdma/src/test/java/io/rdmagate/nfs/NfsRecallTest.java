package io.rdmagate.nfs;

import static io.rdmagate.nfs.v3.Nfs3Status.NFS3ERR_ACCES;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.rdmagate.gateway.spi.config.ClientRule.Access;
import io.rdmagate.nfs.client.Nfs3Client;
import io.rdmagate.nfs.client.Nfs3Client.NfsStatusException;
import io.rdmagate.nfs.v3.Nfs3;
import io.rdmagate.vfs.ExportOptions;
import io.rdmagate.vfs.VirtualFileSystem;
import io.rdmagate.vfs.inmemory.InMemoryFileSystem;
import io.rdmagate.vfs.state.CacheHolder;
import io.rdmagate.vfs.state.Conflict;
import io.rdmagate.vfs.state.Recall;
import io.rdmagate.vfs.state.ShareReservations;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What each NFSv3 procedure asks of the volume's one state before it acts: the conflict it
 * recalls from other protocols' clients, on which file, and that an open of another protocol
 * denying writes or removal refuses them with NFS3ERR_ACCES and leaves the file as it was. The
 * other protocol here is a holder that records what it is asked (the SMB server's answers are
 * tested in smb-server's CrossProtocolBreakTest, both together in the lab's RdmagateCoherenceTest).
 */
class NfsRecallTest {
    /** Records every recall. */
    static final class Recorder implements CacheHolder {
        final List<String> asked = new ArrayList<>();

        @Override
        public String protocol() {
            return "test";
        }

        @Override
        public boolean holdsAnything() {
            return true;
        }

        @Override
        public synchronized Recall recall(int volumeId, long fileId, long generation, Conflict conflict, Object breaker) {
            asked.add(conflict + " " + fileId);
            return null;
        }

        synchronized List<String> take() {
            List<String> out = List.copyOf(asked);
            asked.clear();
            return out;
        }
    }

    NfsFixture fx;
    Nfs3Client nfs;
    byte[] root;
    VirtualFileSystem fs;
    final Recorder other = new Recorder();

    @BeforeEach
    void start() throws Exception {
        fs = InMemoryFileSystem.create(21, ExportOptions.DEFAULT);
        fs.states().register(other);
        fx = new NfsFixture(List.of(NfsFixture.export(0, "data", fs, NfsFixture.rule("127.0.0.0/8", Access.RW, false,
                false))), h -> null);
        nfs = Nfs3Client.connect(fx.nfs(), NfsFixture.ROOT);
        root = Nfs3Client.mount(fx.mount(), "/data", NfsFixture.ROOT);
    }

    @AfterEach
    void stop() throws Exception {
        nfs.close();
        fx.close();
    }

    private long id(byte[] fh) throws Exception {
        return nfs.getattr(fh).fileId();
    }

    @Test
    void eachProcedureRecallsWhatItMakesUntrue() throws Exception {
        byte[] f = nfs.create(root, "f", 0644);
        long fid = id(f);
        other.take();
        nfs.write(f, 0, new byte[] {1, 2, 3}, Nfs3.FILE_SYNC);
        assertEquals(List.of("WRITE " + fid), other.take());
        nfs.read(f, 0, 10);
        assertEquals(List.of("READ " + fid), other.take(), "a READ takes write caching (and only once)");
        nfs.getattr(f);
        assertEquals(List.of("READ " + fid), other.take(), "a GETATTR sees what a writer caches");
        nfs.call(Nfs3.SETATTR, e -> {
            e.writeOpaque(f);
            Nfs3Client.sattrMode(e, 0600);
            e.writeBool(false);
        });
        assertEquals(List.of("WRITE " + fid), other.take());
        nfs.create(root, "f", 0644); // UNCHECKED over the existing file sets its attributes
        assertEquals(List.of("WRITE " + fid), other.take());
        nfs.rename(root, "f", root, "g");
        assertEquals(List.of("NAMESPACE " + fid), other.take());
        byte[] h = nfs.create(root, "h", 0644);
        long hid = id(h);
        other.take();
        nfs.rename(root, "g", root, "h");
        assertEquals(List.of("NAMESPACE " + fid, "NAMESPACE " + hid), other.take(), "the replaced file too");
        nfs.call(Nfs3.LINK, e -> e.writeOpaque(f).writeOpaque(root).writeString("link"));
        assertEquals(List.of("NAMESPACE " + fid), other.take());
        nfs.remove(root, "h");
        assertEquals(List.of("NAMESPACE " + fid), other.take());
        nfs.lookup(root, "link");
        assertEquals(List.of(), other.take(), "a LOOKUP recalls nothing");
    }

    @Test
    void anotherProtocolsShareModeRefusesWritesAndRemovalAndLeavesTheFile() throws Exception {
        byte[] f = nfs.create(root, "locked-open", 0644);
        nfs.write(f, 0, new byte[] {7}, Nfs3.FILE_SYNC);
        // an open of the other protocol that reads and shares reading only (no FILE_SHARE_WRITE, _DELETE)
        var open = fs.states().shares().reserve(id(f), 0, ShareReservations.READ,
                ShareReservations.WRITE | ShareReservations.DELETE, other, "an open");
        NfsStatusException w = assertThrows(NfsStatusException.class,
                () -> nfs.write(f, 0, new byte[] {9, 9}, Nfs3.FILE_SYNC));
        assertEquals(NFS3ERR_ACCES, w.status());
        NfsStatusException r = assertThrows(NfsStatusException.class, () -> nfs.remove(root, "locked-open"));
        assertEquals(NFS3ERR_ACCES, r.status());
        assertArrayEquals(new byte[] {7}, nfs.read(f, 0, 10).data(), "the refused write changed nothing");
        open.release();
        nfs.remove(root, "locked-open");
    }
}
