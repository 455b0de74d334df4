package io.rdmagate.gateway.http;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;

/**
 * GET /health (JSON) and GET /metrics (Prometheus text 0.0.4) on the JDK's HTTP server, one
 * virtual thread per exchange; not a hot path. Other paths are 404, other methods 405.
 */
public final class HttpEndpoint implements AutoCloseable {
    static final String PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";

    private final HttpServer server;
    private final ExecutorService executor;

    private HttpEndpoint(HttpServer server, ExecutorService executor) {
        this.server = server;
        this.executor = executor;
    }

    public static HttpEndpoint start(InetSocketAddress address, GatewayMetrics metrics, Supplier<Health> health)
            throws IOException {
        HttpServer server = HttpServer.create(address, 0);
        ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
        server.setExecutor(executor);
        server.createContext("/", exchange -> {
            try (exchange) {
                String path = exchange.getRequestURI().getPath();
                switch (path) {
                    case "/health" -> health(exchange, health.get());
                    case "/metrics" -> get(exchange, PROMETHEUS_TEXT, metrics::scrape);
                    default -> send(exchange, 404, "text/plain; charset=utf-8", "not found: " + path + "\n");
                }
            }
        });
        server.start();
        return new HttpEndpoint(server, executor);
    }

    /** The bound address (the real port when 0 was asked). */
    public InetSocketAddress address() {
        return server.getAddress();
    }

    private static void get(HttpExchange ex, String type, Supplier<String> body) throws IOException {
        if (allowed(ex)) {
            send(ex, 200, type, body.get());
        }
    }

    /** 200 while the gateway is up, 503 while it starts or stops: what HTTP probes (Kubernetes) read. */
    private static void health(HttpExchange ex, Health h) throws IOException {
        if (allowed(ex)) {
            send(ex, h.status().equals("up") ? 200 : 503, "application/json", h.toJson());
        }
    }

    private static boolean allowed(HttpExchange ex) throws IOException {
        if (ex.getRequestMethod().equals("GET")) {
            return true;
        }
        ex.getResponseHeaders().set("Allow", "GET");
        send(ex, 405, "text/plain; charset=utf-8", "method not allowed\n");
        return false;
    }

    private static void send(HttpExchange ex, int status, String type, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", type);
        ex.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = ex.getResponseBody()) {
            out.write(bytes);
        }
    }

    @Override
    public void close() {
        server.stop(0);
        executor.close();
    }
}
