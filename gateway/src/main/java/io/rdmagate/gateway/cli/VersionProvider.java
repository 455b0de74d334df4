package io.rdmagate.gateway.cli;

import io.rdmagate.gateway.Version;
import picocli.CommandLine;

/** {@code --version} of every command. */
public final class VersionProvider implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
        return new String[] {"rdmagate " + Version.get(), "Java " + Runtime.version()};
    }
}
