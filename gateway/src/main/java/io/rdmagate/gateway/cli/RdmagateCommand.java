package io.rdmagate.gateway.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

@Command(name = "rdmagate", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = "A file gateway: NFS and SMB over TCP and RDMA on one directory tree.",
        subcommands = {ServeCommand.class, UserCommand.class, HealthCommand.class, RdmaCommand.class})
public final class RdmagateCommand implements Runnable {
    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }
}
