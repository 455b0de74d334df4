package io.rdmagate.gateway.cli;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import io.rdmagate.gateway.GatewayRuntime;
import io.rdmagate.gateway.Main;
import io.rdmagate.gateway.PortPlanner;
import io.rdmagate.gateway.spi.ProtocolService;
import io.rdmagate.gateway.ShutdownSignals;
import io.rdmagate.gateway.config.ConfigParser;
import io.rdmagate.gateway.spi.config.ExportConfig;
import io.rdmagate.gateway.spi.config.GatewayConfig;
import io.rdmagate.gateway.spi.config.HttpConfig;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.concurrent.Callable;
import java.util.function.Predicate;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(name = "serve", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = {"Serves the configured exports until SIGTERM or SIGINT, then stops in order and exits 0.",
                "Configuration: --config, else $RDMAGATE_CONFIG, else ./rdmagate.yaml, else the embedded default"
                        + " (export ./data as /data to everyone, share 'data')."})
public final class ServeCommand implements Callable<Integer> {
    static final Duration STOP_GRACE = Duration.ofSeconds(10);
    /**
     * What the stop may take beyond the services' grace (the exports' handle stores flushing, the
     * pool and the device closing) before the process halts anyway (see {@link ShutdownSignals}).
     */
    static final Duration STOP_BOUND_MARGIN = Duration.ofSeconds(20);

    @Option(names = "--config", paramLabel = "FILE", description = "The YAML configuration file.")
    Path config;

    @Option(names = "--export", paramLabel = "DIR",
            description = "Serve DIR as the first export (the default export 'data') instead of its configured path.")
    Path export;

    @Option(names = "--state", paramLabel = "DIR", description = "Keep handle stores in DIR instead of the configured stateDir.")
    Path state;

    @Option(names = "--http", paramLabel = "HOST:PORT",
            description = "Address of the /health and /metrics endpoint (default 127.0.0.1:9049; port 0 = any).")
    String http;

    @Option(names = "--log-level", paramLabel = "LEVEL",
            description = "Log level: trace, debug, info, warn, error or off (default: $RDMAGATE_LOG_LEVEL, else info).")
    String logLevel;

    @Override
    public Integer call() throws Exception {
        if (logLevel != null) {
            setLogLevel(logLevel);
        }
        Optional<Path> file = ConfigLocator.forServe(config, System.getenv(), Path.of(""));
        if (file.isPresent() && !Files.isRegularFile(file.get())) {
            throw new Main.CommandFailure("configuration file " + file.get() + " does not exist"
                    + (config == null ? " (named by $" + ConfigLocator.ENV + ")" : ""), Main.EXIT_CONFIG);
        }
        GatewayConfig cfg = file.isPresent() ? ConfigParser.parse(file.get()) : ConfigParser.parseDefault();
        if (export != null) {
            cfg = cfg.withFirstExportPath(export);
        }
        if (state != null) {
            cfg = cfg.withStateDir(state);
        }
        if (http != null) {
            HttpConfig h = parseHttp(http);
            cfg = cfg.withHttp(cfg.http().at(h.address(), h.port()));
        }
        // only the embedded default's ./data is created; a file made by 'user add' still names it
        Path defaultData = ConfigParser.parseDefault().exports().getFirst().path();
        boolean overridden = export != null;
        Predicate<ExportConfig> createIfMissing = e -> !overridden && e.path().equals(defaultData);
        List<ProtocolService> services = ServiceLoader.load(ProtocolService.class).stream()
                .map(ServiceLoader.Provider::get).toList();
        ShutdownSignals signals = ShutdownSignals.install(STOP_GRACE.plus(STOP_BOUND_MARGIN));
        GatewayRuntime runtime = GatewayRuntime.start(cfg, createIfMissing, services, PortPlanner.forThisHost(),
                new InetSocketAddress(0).getAddress());
        signals.await();
        runtime.stop(STOP_GRACE);
        signals.stopped();
        LoggerFactory.getLogger(ServeCommand.class).info("rdmagate stopped");
        return 0;
    }

    static HttpConfig parseHttp(String text) throws Main.CommandFailure {
        int colon = text.lastIndexOf(':');
        String host = colon < 0 ? "" : text.substring(0, colon).replaceAll("^\\[|]$", "");
        try {
            int port = Integer.parseInt(text.substring(colon + 1));
            if (colon < 0 || port < 0 || port > 65535) {
                throw new NumberFormatException();
            }
            InetAddress a = host.equals("localhost") ? InetAddress.getLoopbackAddress() : InetAddress.ofLiteral(host);
            return new HttpConfig(a, port);
        } catch (IllegalArgumentException e) {
            throw new Main.CommandFailure("--http '" + text + "' must be IP:PORT, e.g. 127.0.0.1:9049 or [::1]:9049",
                    Main.EXIT_CONFIG);
        }
    }

    private static void setLogLevel(String name) throws Main.CommandFailure {
        String n = name.toUpperCase(Locale.ROOT);
        if (!List.of("TRACE", "DEBUG", "INFO", "WARN", "ERROR", "OFF").contains(n)) {
            throw new Main.CommandFailure("--log-level '" + name + "' must be trace, debug, info, warn, error or off",
                    Main.EXIT_CONFIG);
        }
        ((Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)).setLevel(Level.toLevel(n));
    }
}
