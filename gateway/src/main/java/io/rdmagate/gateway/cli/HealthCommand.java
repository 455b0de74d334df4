package io.rdmagate.gateway.cli;

import io.rdmagate.gateway.Main;
import io.rdmagate.gateway.spi.config.HttpConfig;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** A health probe that needs nothing but the program: for container HEALTHCHECKs and scripts. */
@Command(name = "health", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = {"Asks a running gateway's GET /health; prints its answer and exits 0 when it is up,"
                + " 1 when it answers otherwise or does not answer."})
public final class HealthCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--http", paramLabel = "HOST:PORT",
            description = "Where the gateway's /health is (default 127.0.0.1:9049).")
    String http;

    @Option(names = "--timeout", paramLabel = "SECONDS", defaultValue = "5",
            description = "How long to wait for the answer (default 5).")
    int timeoutSeconds;

    @Override
    public Integer call() throws Exception {
        HttpConfig h = http == null ? new HttpConfig(java.net.InetAddress.getLoopbackAddress(), HttpConfig.DEFAULT_PORT)
                : ServeCommand.parseHttp(http);
        String host = h.address().isAnyLocalAddress() ? "127.0.0.1" : h.address().getHostAddress();
        URI uri = URI.create("http://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + h.port() + "/health");
        Duration timeout = Duration.ofSeconds(Math.clamp(timeoutSeconds, 1, 300));
        try (HttpClient client = HttpClient.newBuilder().connectTimeout(timeout).build()) {
            HttpResponse<String> r = client.send(HttpRequest.newBuilder(uri).timeout(timeout).build(),
                    HttpResponse.BodyHandlers.ofString());
            spec.commandLine().getOut().println(r.body());
            spec.commandLine().getOut().flush();
            return r.statusCode() == 200 && r.body().contains("\"status\":\"up\"") ? 0 : Main.EXIT_FAILURE;
        } catch (IOException e) {
            spec.commandLine().getErr().println("rdmagate health: " + uri + " does not answer: " + e.getMessage());
            return Main.EXIT_FAILURE;
        }
    }
}
