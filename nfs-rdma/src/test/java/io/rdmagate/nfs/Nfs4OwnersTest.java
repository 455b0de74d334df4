package io.rdmagate.nfs;

import static io.rdmagate.nfs.v4.Nfs4.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.rdmagate.gateway.spi.config.ClientRule.Access;
import io.rdmagate.nfs.Nfs4TestClient.Reply;
import io.rdmagate.nfs.client.Nfs3Client;
import io.rdmagate.nfs.v4.Fattr4;
import io.rdmagate.nfs.v4.IdMap;
import io.rdmagate.nfs.v4.Nfs4Exception;
import io.rdmagate.nfs.v4.Nfs4Server;
import io.rdmagate.oncrpc.xdr.XdrDecoder;
import io.rdmagate.vfs.ExportOptions;
import io.rdmagate.vfs.inmemory.InMemoryFileSystem;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * owner and owner_group (RFC 8881 §5.9): numbers by default, as the Linux client expects of an
 * AUTH_SYS server; with a domain, "name@domain" for the ids the host's databases name and numbers
 * for the rest, and a client may send either.
 */
class Nfs4OwnersTest {
    @TempDir
    Path dir;

    private IdMap map(String domain) throws Exception {
        Path passwd = Files.writeString(dir.resolve("passwd"),
                "root:x:0:0:root:/root:/bin/bash\n# comment\nalice:x:1000:1000::/home/alice:/bin/sh\nbad:x:y:1\n");
        Path group = Files.writeString(dir.resolve("group"), "root:x:0:\nstaff:x:50:alice\n");
        return new IdMap(domain, passwd, group);
    }

    @Test
    void withADomainKnownIdsAreNamesAndTheRestNumbers() throws Exception {
        IdMap ids = map("Example.ORG");
        assertEquals("alice@example.org", ids.owner(1000));
        assertEquals("4242", ids.owner(4242), "an id the host does not name stays a number");
        assertEquals("staff@example.org", ids.ownerGroup(50));
        assertEquals(1000, ids.uid("alice@EXAMPLE.org"), "the domain is compared without case");
        assertEquals(4242, ids.uid("4242"), "a number is always taken");
        assertEquals(50, ids.gid("staff@example.org"));
        assertEquals(NFS4ERR_BADOWNER, assertThrows(Nfs4Exception.class, () -> ids.uid("alice@elsewhere.org")).status());
        assertEquals(NFS4ERR_BADOWNER, assertThrows(Nfs4Exception.class, () -> ids.uid("ghost@example.org")).status());
        assertEquals(NFS4ERR_BADOWNER, assertThrows(Nfs4Exception.class, () -> ids.gid("alice@example.org")).status(),
                "a user is not a group");
    }

    @Test
    void withoutOneOwnersAreNumbersAndNamesAreRefused() throws Exception {
        IdMap ids = IdMap.of("");
        assertEquals("1000", ids.owner(1000));
        assertEquals(0, ids.uid("0"));
        assertEquals(4294967295L, Integer.toUnsignedLong(ids.uid("4294967295")));
        assertEquals(NFS4ERR_BADOWNER, assertThrows(Nfs4Exception.class, () -> ids.uid("root@localdomain")).status());
        assertEquals(NFS4ERR_BADOWNER, assertThrows(Nfs4Exception.class, () -> ids.uid("4294967296")).status());
    }

    /** Over the wire, with the host's own databases: root is "root@example.org" both ways. */
    @Test
    void getattrAndSetattrSpeakNamesAtTheConfiguredDomain() throws Exception {
        try (NfsFixture fx = new NfsFixture(List.of(NfsFixture.export(0, "data",
                InMemoryFileSystem.create(14, ExportOptions.DEFAULT), NfsFixture.rule("127.0.0.0/8", Access.RW, false, false))),
                h -> null, new SimpleMeterRegistry(), new Nfs4Server.Options(Duration.ofSeconds(90), 64, 64, 16, 64, 8192,
                        Duration.ZERO, 16, "example.org"));
                Nfs3Client v3 = Nfs3Client.connect(fx.nfs(), NfsFixture.ROOT);
                Nfs4TestClient c = Nfs4TestClient.connect(fx.nfs(), NfsFixture.ROOT).establish("owners")) {
            v3.create(Nfs3Client.mount(fx.mount(), "/data", NfsFixture.ROOT), "owned", 0644);
            Reply r = c.compound().op(OP_PUTROOTFH).op(OP_LOOKUP, e -> Nfs4TestClient.name(e, "data"))
                    .op(OP_LOOKUP, e -> Nfs4TestClient.name(e, "owned")).op(OP_SETATTR, e -> {
                        e.writeInt(0).writeFixedOpaque(new byte[12]);
                        Nfs4TestClient.bitmap(e, Fattr4.OWNER);
                        e.writeOpaque(Nfs3Client.encode(v -> v.writeString("root@EXAMPLE.org")));
                    }).op(OP_GETATTR, e -> Nfs4TestClient.bitmap(e, Fattr4.OWNER, Fattr4.OWNER_GROUP)).send();
            Nfs4TestClient.skip(r.next(OP_SEQUENCE, NFS4_OK), 16 + 20);
            r.next(OP_PUTROOTFH, NFS4_OK);
            r.next(OP_LOOKUP, NFS4_OK);
            r.next(OP_LOOKUP, NFS4_OK);
            XdrDecoder set = r.next(OP_SETATTR, NFS4_OK);
            Nfs4TestClient.skip(set, 4 * Nfs4TestClient.read(set::readInt)); // attrsset
            XdrDecoder a = Nfs4TestClient.fattr(r.next(OP_GETATTR, NFS4_OK), Fattr4.OWNER, Fattr4.OWNER_GROUP);
            assertEquals("root@example.org", Nfs4TestClient.read(() -> a.readString(64)));
            assertEquals("root@example.org", Nfs4TestClient.read(() -> a.readString(64)));

            Reply bad = c.compound().op(OP_PUTROOTFH).op(OP_LOOKUP, e -> Nfs4TestClient.name(e, "data"))
                    .op(OP_LOOKUP, e -> Nfs4TestClient.name(e, "owned")).op(OP_SETATTR, e -> {
                        e.writeInt(0).writeFixedOpaque(new byte[12]);
                        Nfs4TestClient.bitmap(e, Fattr4.OWNER);
                        e.writeOpaque(Nfs3Client.encode(v -> v.writeString("root@elsewhere.org")));
                    }).send();
            assertEquals(NFS4ERR_BADOWNER, bad.status);
        }
    }
}
