package io.rdmagate.gateway.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

@Command(name = "rdma", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = "Looks at the host's RDMA devices, as the gateway would use them.",
        subcommands = {RdmaDevicesCommand.class, RdmaRpingCommand.class})
public final class RdmaCommand implements Runnable {
    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }
}
