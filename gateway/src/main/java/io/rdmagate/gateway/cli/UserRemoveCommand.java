package io.rdmagate.gateway.cli;

import io.rdmagate.gateway.Main;
import io.rdmagate.gateway.users.UsersFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "remove", aliases = "del", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = "Removes an SMB user from the configuration file; everything else in the file stays.")
public final class UserRemoveCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "NAME", description = "User name to remove.")
    String name;

    @Option(names = "--config", paramLabel = "FILE",
            description = "Configuration file to edit (default: $RDMAGATE_CONFIG, else ./rdmagate.yaml).")
    Path config;

    @Override
    public Integer call() throws Exception {
        Path file = ConfigLocator.forEdit(config, System.getenv(), Path.of(""));
        if (!Files.exists(file) || !UsersFile.remove(file, name)) {
            throw new Main.CommandFailure("no user '" + name + "' in " + file, Main.EXIT_FAILURE);
        }
        spec.commandLine().getOut().println("removed user " + name + " from " + file);
        spec.commandLine().getOut().flush();
        return 0;
    }
}
