package io.rdmagate.gateway.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rdmagate.gateway.Main;
import io.rdmagate.gateway.config.ConfigParser;
import io.rdmagate.gateway.spi.config.UserEntry;
import io.rdmagate.gateway.users.NtHash;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

class CliTest {
    @TempDir
    Path dir;

    private record Run(int code, String out, String err) {
    }

    private static Run run(String... args) {
        CommandLine cl = Main.commandLine();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        int code = cl.execute(args);
        return new Run(code, out.toString(), err.toString());
    }

    private static List<CommandLine> allCommands(CommandLine c) {
        List<CommandLine> all = new ArrayList<>(List.of(c));
        c.getSubcommands().values().stream().distinct().forEach(s -> all.addAll(allCommands(s))); // aliases repeat
        return all;
    }

    @Test
    void helpOfEveryCommandNamesAndDescribesEveryOption() {
        List<CommandLine> commands = allCommands(Main.commandLine());
        assertEquals(List.of("rdmagate", "serve", "user", "add", "list", "remove", "health", "rdma", "devices", "rping"),
                commands.stream().map(CommandLine::getCommandName).toList());
        for (CommandLine c : commands) {
            List<String> path = new ArrayList<>();
            for (CommandLine p = c; p.getParent() != null; p = p.getParent()) {
                path.addFirst(p.getCommandName());
            }
            path.add("--help");
            Run r = run(path.toArray(String[]::new));
            assertEquals(0, r.code(), String.join(" ", path));
            for (OptionSpec o : c.getCommandSpec().options()) {
                assertTrue(r.out().contains(o.longestName()), c.getCommandName() + " --help lacks " + o.longestName());
                assertTrue(o.description().length > 0 && !o.description()[0].isBlank(),
                        c.getCommandName() + " " + o.longestName() + " has no description");
            }
            c.getCommandSpec().positionalParameters().forEach(p -> assertTrue(p.description().length > 0));
            assertTrue(c.getCommandSpec().options().stream().anyMatch(o -> o.longestName().equals("--version")));
        }
        Run serve = run("serve", "--help");
        for (String o : List.of("--config", "--export", "--state", "--http", "--log-level")) {
            assertTrue(serve.out().contains(o), o);
        }
        Run add = run("user", "add", "--help");
        for (String o : List.of("--config", "--uid", "--gid", "--password-stdin")) {
            assertTrue(add.out().contains(o), o);
        }
    }

    @Test
    void versionIsPrinted() {
        Run r = run("--version");
        assertEquals(0, r.code());
        assertTrue(r.out().startsWith("rdmagate "), r.out());
    }

    @Test
    void noPasswordInArgv() {
        Run r = run("user", "add", "alice", "--password", "secret");
        assertEquals(2, r.code());
        assertTrue(r.err().contains("Unknown option"), r.err());
    }

    private static Run withStdin(String input, String... args) {
        InputStream saved = System.in;
        System.setIn(new ByteArrayInputStream(input.getBytes(StandardCharsets.UTF_8)));
        try {
            return run(args);
        } finally {
            System.setIn(saved);
        }
    }

    @Test
    void userAddListRemove() throws Exception {
        Path file = dir.resolve("gw.yaml");
        String cfg = file.toString();
        int free = io.rdmagate.gateway.users.HostAccounts.read().firstFreeUid(u -> false);
        Run add = withStdin("password\n", "user", "add", "alice", "--config", cfg, "--password-stdin");
        assertEquals(0, add.code(), add.err());
        assertTrue(add.out().contains("created " + cfg), add.out());
        assertTrue(add.out().contains("added user alice (uid " + free + ", gid " + free + ")"),
                "the first uid no host account has: " + add.out());
        Run bob = withStdin("pw\r\n", "user", "add", "bob", "--config", cfg, "--password-stdin", "--uid", "2000", "--gid", "50");
        assertEquals(0, bob.code(), bob.err());
        Run again = withStdin("Xq7-other-pw\n", "user", "add", "alice", "--config", cfg, "--password-stdin");
        assertTrue(again.out().contains("replaced user alice (uid " + free + ", gid " + free + ")"), again.out());
        List<UserEntry> users = ConfigParser.parse(file).users();
        assertEquals(2, users.size());
        Run root = withStdin("pw\n", "user", "add", "carol", "--config", cfg, "--password-stdin", "--uid", "0");
        assertTrue(root.out().contains("note: uid 0 is the host account 'root'"), "never silently: " + root.out());
        assertEquals(0, run("user", "del", "carol", "--config", cfg).code());
        assertEquals(new UserEntry("bob", 2000, 50, NtHash.of("pw".toCharArray())), users.get(1),
                "the line end is not part of the password");
        assertEquals(NtHash.of("Xq7-other-pw".toCharArray()), users.get(0).ntHash());
        assertFalse(Files.readString(file).contains("Xq7-other-pw"), "never the password itself");

        Run list = run("user", "list", "--config", cfg);
        assertTrue(list.out().contains("alice") && list.out().contains("2000"), list.out());
        assertFalse(list.out().contains(users.get(0).ntHash()), "hashes are not listed");

        assertEquals(0, run("user", "remove", "bob", "--config", cfg).code());
        Run missing = run("user", "remove", "bob", "--config", cfg);
        assertEquals(1, missing.code());
        assertTrue(missing.err().contains("no user 'bob'"), missing.err());
    }

    @Test
    void userAddRefusesEmptyPasswordsAndBadNames() {
        Path file = dir.resolve("gw.yaml");
        Run empty = withStdin("\n", "user", "add", "alice", "--config", file.toString(), "--password-stdin");
        assertEquals(1, empty.code());
        assertFalse(Files.exists(file));
        Run bad = withStdin("x\n", "user", "add", "a/b", "--config", file.toString(), "--password-stdin");
        assertEquals(2, bad.code());
    }

    @Test
    void badConfigFailsWithItsLineAndCode2() throws Exception {
        Path file = dir.resolve("bad.yaml");
        Files.writeString(file, "exports: []\nbogus: 1\n");
        Run r = run("serve", "--config", file.toString());
        assertEquals(2, r.code());
        assertTrue(r.err().contains(file + ":1: no exports"), r.err());
        Run missing = run("serve", "--config", dir.resolve("nope.yaml").toString());
        assertEquals(2, missing.code());
        assertTrue(missing.err().contains("does not exist"), missing.err());
    }

    @Test
    void configLookupOrder() throws Exception {
        Path opt = dir.resolve("opt.yaml");
        Path env = dir.resolve("env.yaml");
        Map<String, String> withEnv = Map.of(ConfigLocator.ENV, env.toString());
        assertEquals(opt, ConfigLocator.forServe(opt, withEnv, dir).orElseThrow());
        assertEquals(env, ConfigLocator.forServe(null, withEnv, dir).orElseThrow());
        assertTrue(ConfigLocator.forServe(null, Map.of(), dir).isEmpty(), "embedded default");
        Files.writeString(dir.resolve("rdmagate.yaml"), "");
        assertEquals(dir.resolve("rdmagate.yaml"), ConfigLocator.forServe(null, Map.of(), dir).orElseThrow());
        assertEquals(env, ConfigLocator.forServe(null, withEnv, dir).orElseThrow());
        assertEquals(dir.resolve("rdmagate.yaml"), ConfigLocator.forEdit(null, Map.of(ConfigLocator.ENV, ""), dir));
    }

    @Test
    void httpOption() throws Exception {
        assertEquals(9050, ServeCommand.parseHttp("127.0.0.1:9050").port());
        assertEquals("::1", ServeCommand.parseHttp("[::1]:0").address().getHostAddress().replace("0:0:0:0:0:0:0:1", "::1"));
        for (String bad : List.of("9049", "127.0.0.1", "host:1", "127.0.0.1:70000")) {
            try {
                ServeCommand.parseHttp(bad);
                throw new AssertionError(bad + " accepted");
            } catch (Main.CommandFailure e) {
                assertEquals(2, e.exitCode());
            }
        }
    }

    @Test
    void rdmaDevicesListsWhatSysfsHasOrSaysWhyThereIsNone() throws Exception {
        Run r = run("rdma", "devices");
        Path sys = Path.of("/sys/class/infiniband");
        List<String> devices = Files.isDirectory(sys)
                ? Files.list(sys).map(p -> p.getFileName().toString()).sorted().toList() : List.of();
        if (devices.isEmpty()) {
            assertEquals(1, r.code(), r.out() + r.err());
            assertTrue(r.out().contains("verbs: not available: ") || r.out().contains("verbs: 0 devices"), r.out());
        } else {
            assertEquals(0, r.code(), r.out() + r.err());
            for (String d : devices) {
                assertTrue(r.out().contains("\n" + d + ": transport "), d + " listed:\n" + r.out());
            }
        }
        assertTrue(r.out().contains("soft: the built-in software iWARP"), "the provider that needs no device is named");
        assertEquals("", r.err());
    }
}
