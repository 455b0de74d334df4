package io.rdmagate.gateway.http;

import java.time.Duration;
import java.util.List;

/** What GET /health reports. */
public record Health(String status, String version, Duration uptime, List<Export> exports, List<String> listeners) {
    /**
     * One export; {@code hostChanges} says whether changes other processes make to its files are
     * seen (and so recalled from the clients that cache them), and what was seen.
     */
    public record Export(String name, String path, int volumeId, String hostChanges) {
        /** The one text form of a volume id, in the log and in /health: 8 lower-case hex digits. */
        public static String volumeIdText(int volumeId) {
            return "%08x".formatted(volumeId);
        }
    }

    public Health {
        exports = List.copyOf(exports);
        listeners = List.copyOf(listeners);
    }

    public String toJson() {
        Json j = new Json().begin('{')
                .key("status").value(status)
                .key("version").value(version)
                .key("uptimeSeconds").value(uptime.toSeconds())
                .key("exports").begin('[');
        for (Export e : exports) {
            j.begin('{').key("name").value(e.name()).key("path").value(e.path())
                    .key("volumeId").value(Export.volumeIdText(e.volumeId()))
                    .key("hostChanges").value(e.hostChanges()).end('}');
        }
        j.end(']').key("listeners").begin('[');
        for (String l : listeners) {
            j.value(l);
        }
        return j.end(']').end('}').toString();
    }
}
