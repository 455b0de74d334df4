package io.rdmagate.gateway;

import io.rdmagate.gateway.cli.RdmagateCommand;
import io.rdmagate.gateway.config.ConfigException;
import io.rdmagate.gateway.spi.StartException;
import java.io.PrintWriter;
import picocli.CommandLine;

/**
 * The {@code rdmagate} program. Exit status: 0 success (also after an orderly stop on SIGTERM or
 * SIGINT), 1 failure to start or run, 2 a usage or configuration error.
 */
public final class Main {
    public static final int EXIT_FAILURE = 1;
    public static final int EXIT_CONFIG = 2;

    private Main() {
    }

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    /** The command tree with rdmagate's exit codes; tests run it in-process. */
    public static CommandLine commandLine() {
        CommandLine cl = new CommandLine(new RdmagateCommand());
        cl.setExecutionExceptionHandler((e, cmd, parsed) -> {
            PrintWriter err = cmd.getErr();
            switch (e) {
                case ConfigException c -> {
                    err.println("rdmagate: configuration error: " + c.getMessage());
                    err.flush();
                    return EXIT_CONFIG;
                }
                case StartException s -> {
                    err.println("rdmagate: cannot start: " + s.getMessage());
                    err.flush();
                    return EXIT_FAILURE;
                }
                case CommandFailure f -> {
                    err.println("rdmagate: " + f.getMessage());
                    err.flush();
                    return f.exitCode();
                }
                default -> {
                    err.println("rdmagate: " + e);
                    e.printStackTrace(err);
                    err.flush();
                    return EXIT_FAILURE;
                }
            }
        });
        return cl;
    }

    /** A command failed for a reason the user can act on; printed without a stack trace. */
    public static final class CommandFailure extends Exception {
        private final int exitCode;

        public CommandFailure(String message, int exitCode) {
            super(message);
            this.exitCode = exitCode;
        }

        public int exitCode() {
            return exitCode;
        }
    }
}
