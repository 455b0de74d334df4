package io.rdmagate.gateway.users;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rdmagate.gateway.config.ConfigParser;
import io.rdmagate.gateway.spi.config.GatewayConfig;
import io.rdmagate.gateway.spi.config.UserEntry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class UsersFileTest {
    private static final String HASH = "8846F7EAEE8FB117AD06BDD830B7586C";
    private static final String HASH2 = "31D6CFE0D16AE931B73C59D7E0C089C0";
    private static final String BASE = """
            # my gateway
            exports:
              - name: data   # the only one
                path: /srv/data
                clients: [{match: "*"}]
            """;

    @TempDir
    Path dir;

    private static UserEntry user(String name, int uid, String hash) {
        return new UserEntry(name, uid, uid, hash);
    }

    @Test
    void createsTheSectionAndKeepsComments() throws Exception {
        String out = UsersFile.withUser("t.yaml", BASE, user("alice", 1000, HASH));
        assertTrue(out.startsWith(BASE), out);
        assertTrue(out.contains("users:\n  - {name: \"alice\", uid: 1000, gid: 1000, ntHash: " + HASH + "}\n"), out);
        assertEquals(List.of(user("alice", 1000, HASH)), ConfigParser.parse("t.yaml", out).users());
    }

    @Test
    void appendsToABlockListAndKeepsWhatFollows() throws Exception {
        String text = BASE + """
                users:
                  # staff
                  - name: bob
                    uid: 1001
                    gid: 1001
                    ntHash: %s   # set 2024
                # the end
                http: {port: 9050}
                """.formatted(HASH2);
        String out = UsersFile.withUser("t.yaml", text, user("alice", 1000, HASH));
        GatewayConfig c = ConfigParser.parse("t.yaml", out);
        assertEquals(List.of(user("bob", 1001, HASH2), user("alice", 1000, HASH)), c.users());
        assertEquals(9050, c.http().port());
        assertTrue(out.contains("  # staff\n"));
        assertTrue(out.contains("ntHash: " + HASH2 + "   # set 2024\n  - {name: \"alice\""), out);
        assertTrue(out.contains("# the end\n"));
    }

    @Test
    void replacesAnEntryOfManyLines() throws Exception {
        String text = BASE + """
                users:
                  - name: bob
                    uid: 1001
                    gid: 1001
                    ntHash: %s
                  - {name: carol, uid: 1002, gid: 1002, ntHash: %s}
                """.formatted(HASH2, HASH2);
        String out = UsersFile.withUser("t.yaml", text, user("BOB", 2001, HASH));
        assertEquals(List.of(user("BOB", 2001, HASH), user("carol", 1002, HASH2)),
                ConfigParser.parse("t.yaml", out).users());
        assertFalse(out.contains("uid: 1001"), out);
        String removed = UsersFile.withoutUser("t.yaml", out, "carol");
        assertEquals(List.of(user("BOB", 2001, HASH)), ConfigParser.parse("t.yaml", removed).users());
        assertTrue(removed.startsWith(BASE));
    }

    @Test
    void fillsAnEmptyOrFlowSection() throws Exception {
        String empty = BASE + "users:   # none yet\nhttp: {port: 9050}\n";
        String out = UsersFile.withUser("t.yaml", empty, user("alice", 1000, HASH));
        assertTrue(out.contains("users:   # none yet\n  - {name: \"alice\""), out);
        assertEquals(9050, ConfigParser.parse("t.yaml", out).http().port());

        String flow = BASE + "users: [{name: bob, uid: 1001, gid: 1001, ntHash: " + HASH2 + "}]\n";
        out = UsersFile.withUser("t.yaml", flow, user("alice", 1000, HASH));
        assertEquals(List.of(user("bob", 1001, HASH2), user("alice", 1000, HASH)),
                ConfigParser.parse("t.yaml", out).users());
        out = UsersFile.withUser("t.yaml", BASE + "users: []\n", user("alice", 1000, HASH));
        assertEquals(List.of(user("alice", 1000, HASH)), ConfigParser.parse("t.yaml", out).users());
    }

    @Test
    void topLevelListWithoutIndent() throws Exception {
        String text = BASE + "users:\n- {name: bob, uid: 1001, gid: 1001, ntHash: " + HASH2 + "}\nsmb: {}\n";
        String out = UsersFile.withUser("t.yaml", text, user("alice", 1000, HASH));
        assertTrue(out.contains("\n- {name: \"alice\""), out);
        assertEquals(2, ConfigParser.parse("t.yaml", out).users().size());
    }

    @Test
    void createsAMissingFileFromTheDefaultWithMode0600() throws Exception {
        Path file = dir.resolve("rdmagate.yaml");
        assertEquals(UsersFile.Outcome.ADDED, UsersFile.add(file, user("alice", 1000, HASH)));
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
        String text = Files.readString(file);
        assertTrue(text.contains("# rdmagate configuration"), "the default's comments are kept");
        GatewayConfig c = ConfigParser.parse(file);
        assertEquals(List.of(user("alice", 1000, HASH)), c.users());
        assertEquals(ConfigParser.parseDefault().exports(), c.exports());
        assertEquals(UsersFile.Outcome.REPLACED, UsersFile.add(file, user("alice", 1000, HASH2)));
        assertEquals(List.of(user("alice", 1000, HASH2)), UsersFile.list(file));
        assertTrue(UsersFile.remove(file, "alice"));
        assertFalse(UsersFile.remove(file, "alice"));
        assertTrue(UsersFile.list(file).isEmpty());
    }

    @Test
    void anExistingFileLosesGroupAndOtherAccess() throws Exception {
        Path file = dir.resolve("g.yaml");
        Files.writeString(file, BASE);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
        UsersFile.add(file, user("alice", 1000, HASH));
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
        assertTrue(Files.readString(file).startsWith(BASE));
        try (var s = Files.list(dir)) {
            assertEquals(1, s.count(), "no temporary file left behind");
        }
    }
}
