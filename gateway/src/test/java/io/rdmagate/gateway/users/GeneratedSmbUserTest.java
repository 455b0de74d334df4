package io.rdmagate.gateway.users;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class GeneratedSmbUserTest {
    @TempDir
    Path dir;

    private HostAccounts accounts(String passwd) throws Exception {
        Path f = dir.resolve("passwd");
        Files.writeString(f, passwd);
        return HostAccounts.read(f);
    }

    private static Map<String, String> credentials(Path f) throws Exception {
        return Files.readAllLines(f).stream().map(l -> l.split("=", 2))
                .collect(Collectors.toMap(a -> a[0], a -> a[1]));
    }

    @Test
    void firstStartWritesACredentialsFileForSmbclientAndTheHashOnlyInTheStore() throws Exception {
        HostAccounts host = accounts("root:x:0:0::/root:/bin/sh\nalice:x:1000:1000::/home/alice:/bin/sh\n"
                + "bob:x:1001:1001::/home/bob:/bin/sh\n");
        Path state = dir.resolve("state");
        GeneratedSmbUser.Outcome o = GeneratedSmbUser.ensure(state, "WORKGROUP", host);
        assertTrue(o.created());
        assertEquals(1002, o.user().uid(), "never a host account's uid");
        Map<String, String> c = credentials(state.resolve("smb-credentials"));
        assertEquals("rdmagate", c.get("username"));
        assertEquals("WORKGROUP", c.get("domain"));
        assertEquals(NtHash.of(c.get("password").toCharArray()), o.user().ntHash(), "the store's hash is the password's");
        String store = Files.readString(state.resolve("smb-user"));
        assertFalse(store.contains(c.get("password")), "the store holds no password: " + store);
        for (String f : new String[] {"smb-user", "smb-credentials"}) {
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(state.resolve(f))), f);
        }

        GeneratedSmbUser.Outcome again = GeneratedSmbUser.ensure(state, "WORKGROUP", host);
        assertFalse(again.created());
        assertEquals(o.user(), again.user(), "a restart serves the same user and password");
    }

    @Test
    void aDeletedCredentialsFileGetsANewPasswordForTheSameUser() throws Exception {
        HostAccounts host = accounts("");
        Path state = dir.resolve("state");
        GeneratedSmbUser.Outcome o = GeneratedSmbUser.ensure(state, "WORKGROUP", host);
        Files.delete(state.resolve("smb-credentials"));
        GeneratedSmbUser.Outcome n = GeneratedSmbUser.ensure(state, "WORKGROUP", host);
        assertTrue(n.created());
        assertEquals(o.user().uid(), n.user().uid());
        assertNotEquals(o.user().ntHash(), n.user().ntHash());
        assertEquals(NtHash.of(credentials(state.resolve("smb-credentials")).get("password").toCharArray()),
                n.user().ntHash());
    }

    @Test
    void hostAccountsAreReadFromPasswd() throws Exception {
        HostAccounts host = accounts("root:x:0:0::/root:/bin/sh\n# comment\nbroken\nalice:x:1000:1000::/h:/bin/sh\n");
        assertEquals("alice", host.nameOf(1000).orElseThrow());
        assertEquals(1001, host.firstFreeUid(u -> false));
        assertEquals(1002, host.firstFreeUid(u -> u == 1001), "nor another SMB user's");
        assertTrue(HostAccounts.read(dir.resolve("missing")).nameOf(0).isEmpty());
    }
}
