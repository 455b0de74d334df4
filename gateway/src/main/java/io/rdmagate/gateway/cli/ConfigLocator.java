package io.rdmagate.gateway.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

/** Which configuration file a command uses: --config, else $RDMAGATE_CONFIG, else ./rdmagate.yaml. */
public final class ConfigLocator {
    public static final String ENV = "RDMAGATE_CONFIG";
    public static final String LOCAL_FILE = "rdmagate.yaml";

    private ConfigLocator() {
    }

    /** For {@code serve}: the file to read, or empty for the embedded default (no option, no env, no ./rdmagate.yaml). */
    public static Optional<Path> forServe(Path option, Map<String, String> env, Path workDir) {
        Path named = named(option, env);
        if (named != null) {
            return Optional.of(named);
        }
        Path local = workDir.resolve(LOCAL_FILE);
        return Files.exists(local) ? Optional.of(local) : Optional.empty();
    }

    /** For the {@code user} commands: the file to edit, which may not exist yet. */
    public static Path forEdit(Path option, Map<String, String> env, Path workDir) {
        Path named = named(option, env);
        return named != null ? named : workDir.resolve(LOCAL_FILE);
    }

    private static Path named(Path option, Map<String, String> env) {
        if (option != null) {
            return option;
        }
        String e = env.get(ENV);
        return e == null || e.isBlank() ? null : Path.of(e);
    }
}
