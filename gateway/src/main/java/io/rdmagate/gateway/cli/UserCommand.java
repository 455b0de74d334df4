package io.rdmagate.gateway.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

@Command(name = "user", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = "Manages the SMB users of the configuration file (NT hashes only; passwords are never stored).",
        subcommands = {UserAddCommand.class, UserListCommand.class, UserRemoveCommand.class})
public final class UserCommand implements Runnable {
    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }
}
