package io.rdmagate.gateway.cli;

import io.rdmagate.gateway.Main;
import io.rdmagate.gateway.config.ConfigParser;
import io.rdmagate.gateway.spi.config.UserEntry;
import io.rdmagate.gateway.users.HostAccounts;
import io.rdmagate.gateway.users.NtHash;
import io.rdmagate.gateway.users.UsersFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "add", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = {"Adds an SMB user to the configuration file, or replaces the one with that name.",
                "Only the password's NT hash is written. The file is created from the embedded default if"
                        + " missing, and its mode becomes 0600."})
public final class UserAddCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "NAME", description = "User name (letters, digits, '.', '_', '-').")
    String name;

    @Option(names = "--config", paramLabel = "FILE",
            description = "Configuration file to edit (default: $RDMAGATE_CONFIG, else ./rdmagate.yaml).")
    Path config;

    @Option(names = "--uid", paramLabel = "N",
            description = "POSIX uid the user acts as (default: kept when replacing, else the first from 1000 that"
                    + " neither a host account nor another SMB user has).")
    Integer uid;

    @Option(names = "--gid", paramLabel = "N", description = "POSIX gid the user acts as (default: kept when replacing, else the uid).")
    Integer gid;

    @Option(names = "--password-stdin",
            description = "Read the password from the first line of standard input instead of asking twice on the terminal.")
    boolean passwordStdin;

    @Override
    public Integer call() throws Exception {
        if (!ConfigParser.isValidUserName(name)) {
            throw new Main.CommandFailure("user name '" + name + "' must be letters, digits, '.', '_' or '-'",
                    Main.EXIT_CONFIG);
        }
        if ((uid != null && uid < 0) || (gid != null && gid < 0)) {
            throw new Main.CommandFailure("--uid and --gid must be 0 or more", Main.EXIT_CONFIG);
        }
        Path file = ConfigLocator.forEdit(config, System.getenv(), Path.of(""));
        boolean existed = Files.exists(file);
        List<UserEntry> users = existed ? UsersFile.list(file) : List.of();
        Optional<UserEntry> old = users.stream().filter(u -> u.name().equalsIgnoreCase(name)).findFirst();
        HostAccounts host = HostAccounts.read();
        int u = uid != null ? uid : old.map(UserEntry::uid)
                .orElseGet(() -> host.firstFreeUid(c -> users.stream().anyMatch(x -> x.uid() == c)));
        int g = gid != null ? gid : old.map(UserEntry::gid).orElse(u);
        char[] password = passwordStdin ? PasswordInput.fromStream(System.in) : PasswordInput.fromTerminal(name);
        String hash;
        try {
            hash = NtHash.of(password);
        } finally {
            PasswordInput.clear(password);
        }
        UsersFile.Outcome outcome = UsersFile.add(file, new UserEntry(name, u, g, hash));
        var out = spec.commandLine().getOut();
        if (!existed) {
            out.println("created " + file + " from the embedded default (mode 0600)");
        }
        out.println((outcome == UsersFile.Outcome.ADDED ? "added" : "replaced") + " user " + name + " (uid " + u
                + ", gid " + g + ") in " + file);
        host.nameOf(u).ifPresent(account -> out.println("note: uid " + u + " is the host account '" + account
                + "': files this SMB user creates belong to it, and it may open that account's files"));
        out.flush();
        return 0;
    }
}
