package io.rdmagate.gateway.cli;

import io.rdmagate.gateway.spi.config.UserEntry;
import io.rdmagate.gateway.users.UsersFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "list", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = "Lists the SMB users of the configuration file (name, uid, gid; never hashes).")
public final class UserListCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--config", paramLabel = "FILE",
            description = "Configuration file to read (default: $RDMAGATE_CONFIG, else ./rdmagate.yaml).")
    Path config;

    @Override
    public Integer call() throws Exception {
        Path file = ConfigLocator.forEdit(config, System.getenv(), Path.of(""));
        var out = spec.commandLine().getOut();
        if (!Files.exists(file)) {
            out.println("no users: " + file + " does not exist");
        } else {
            out.printf("%-24s %10s %10s%n", "NAME", "UID", "GID");
            for (UserEntry u : UsersFile.list(file)) {
                out.printf("%-24s %10d %10d%n", u.name(), u.uid(), u.gid());
            }
        }
        out.flush();
        return 0;
    }
}
