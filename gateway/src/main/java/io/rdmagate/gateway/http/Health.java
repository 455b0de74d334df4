package io.rdmagate.gateway.http;

import java.time.Duration;
import java.util.List;

/** What GET /health reports. */
public record Health(String status, String version, Duration uptime, List<Export> exports, List<String> listeners) {
    public record Export(String name, String path, int volumeId) {
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
                    .key("volumeId").value(Integer.toUnsignedLong(e.volumeId())).end('}');
        }
        j.end(']').key("listeners").begin('[');
        for (String l : listeners) {
            j.value(l);
        }
        return j.end(']').end('}').toString();
    }
}
