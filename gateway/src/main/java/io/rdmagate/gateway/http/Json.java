package io.rdmagate.gateway.http;

/** Just enough JSON writing for the health document. */
final class Json {
    private final StringBuilder out = new StringBuilder();
    private boolean first = true;

    Json begin(char bracket) {
        out.append(bracket);
        first = true;
        return this;
    }

    Json end(char bracket) {
        out.append(bracket);
        first = false;
        return this;
    }

    Json key(String k) {
        comma();
        string(k).append(':');
        first = true;
        return this;
    }

    Json value(String v) {
        comma();
        string(v);
        first = false;
        return this;
    }

    Json value(long v) {
        comma();
        out.append(v);
        first = false;
        return this;
    }

    private void comma() {
        if (!first) {
            out.append(',');
        }
        first = false;
    }

    private StringBuilder string(String s) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.append('"');
    }

    @Override
    public String toString() {
        return out.toString();
    }
}
