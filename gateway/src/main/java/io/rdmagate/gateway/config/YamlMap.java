package io.rdmagate.gateway.config;

import io.rdmagate.gateway.spi.config.Port;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;
import org.yaml.snakeyaml.nodes.Tag;

/**
 * One YAML mapping of the configuration, read key by key. It refuses non-mappings, non-scalar
 * and duplicate keys up front, and {@link #finish} refuses any key that was never asked for, so
 * a misspelt option is an error at its own line, never silently ignored. Values are typed here:
 * booleans are exactly true/false, integers are decimal, and the bounds are checked.
 */
final class YamlMap {
    private final String file;
    private final Node node;
    private final String what;
    private final Map<String, NodeTuple> entries = new LinkedHashMap<>();
    private final Set<String> read = new HashSet<>();

    private YamlMap(String file, Node node, String what) {
        this.file = file;
        this.node = node;
        this.what = what;
    }

    /** {@code node} null (an empty document or a key without value) reads as an empty mapping. */
    static YamlMap of(String file, Node node, String what) throws ConfigException {
        YamlMap m = new YamlMap(file, node, what);
        if (node == null || isNull(node)) {
            return m;
        }
        if (!(node instanceof MappingNode mapping)) {
            throw m.error(node, what + " must be a mapping (key: value lines), found " + kind(node));
        }
        for (NodeTuple t : mapping.getValue()) {
            if (!(t.getKeyNode() instanceof ScalarNode k)) {
                throw m.error(t.getKeyNode(), "keys of " + what + " must be plain words");
            }
            NodeTuple first = m.entries.putIfAbsent(k.getValue(), t);
            if (first != null) {
                throw m.error(k, "duplicate key '" + k.getValue() + "' in " + what + " (first at line "
                        + line(first.getKeyNode()) + ")");
            }
        }
        return m;
    }

    String file() {
        return file;
    }

    /** Line of the mapping itself (1-based); of the document start when it is empty. */
    int line() {
        return node == null ? 1 : line(node);
    }

    /** The value node of a key, or null when the key is absent or its value is null. Marks it read. */
    Node get(String key) {
        NodeTuple t = entries.get(key);
        if (t == null) {
            return null;
        }
        consumed(key);
        return isNull(t.getValueNode()) ? null : t.getValueNode();
    }

    /** Line of a key, or of this mapping when the key is absent. */
    int lineOf(String key) {
        NodeTuple t = entries.get(key);
        return t == null ? line() : line(t.getKeyNode());
    }

    private void consumed(String key) {
        read.add(key);
    }

    /** Refuses the first key that no reader asked for. */
    void finish(String... known) throws ConfigException {
        for (Map.Entry<String, NodeTuple> e : entries.entrySet()) {
            if (!read.contains(e.getKey())) {
                throw error(e.getValue().getKeyNode(), "unknown key '" + e.getKey() + "' in " + what
                        + " (known: " + String.join(", ", known) + ")");
            }
        }
    }

    /** The keys of this mapping, in file order; reading them marks none as read. */
    java.util.Set<String> keys() {
        return java.util.Collections.unmodifiableSet(entries.keySet());
    }

    YamlMap map(String key) throws ConfigException {
        return of(file, get(key), what.equals("the top level") ? key : what + "." + key);
    }

    List<Node> list(String key) throws ConfigException {
        Node n = get(key);
        if (n == null) {
            return List.of();
        }
        if (!(n instanceof SequenceNode s)) {
            throw error(n, key + " must be a list (lines starting with '- '), found " + kind(n));
        }
        return new ArrayList<>(s.getValue());
    }

    String string(String key, String def) throws ConfigException {
        Node n = get(key);
        return n == null ? def : scalar(n, key);
    }

    String requiredString(String key) throws ConfigException {
        Node n = get(key);
        if (n == null) {
            throw error(node, what + " needs '" + key + "'");
        }
        return scalar(n, key);
    }

    boolean bool(String key, boolean def) throws ConfigException {
        Node n = get(key);
        if (n == null) {
            return def;
        }
        String v = scalar(n, key);
        if (v.equalsIgnoreCase("true")) {
            return true;
        }
        if (v.equalsIgnoreCase("false")) {
            return false;
        }
        throw error(n, key + " must be true or false, found '" + v + "'");
    }

    long integer(String key, long def, long min, long max) throws ConfigException {
        Node n = get(key);
        if (n == null) {
            return def;
        }
        String v = scalar(n, key);
        long x;
        try {
            x = Long.parseLong(v);
        } catch (NumberFormatException e) {
            throw error(n, key + " must be an integer, found '" + v + "'");
        }
        if (x < min || x > max) {
            throw error(n, key + " " + x + " is out of range [" + min + ", " + max + "]");
        }
        return x;
    }

    long size(String key, long def, long min, long max) throws ConfigException {
        Node n = get(key);
        if (n == null) {
            return def;
        }
        long x;
        try {
            x = Sizes.parseSize(scalar(n, key));
        } catch (IllegalArgumentException e) {
            throw error(n, key + ": " + e.getMessage());
        }
        if (x < min || x > max) {
            throw error(n, key + " " + Sizes.format(x) + " is out of range [" + Sizes.format(min) + ", "
                    + Sizes.format(max) + "]");
        }
        return x;
    }

    Duration duration(String key, Duration def) throws ConfigException {
        Node n = get(key);
        if (n == null) {
            return def;
        }
        try {
            return Sizes.parseDuration(scalar(n, key));
        } catch (IllegalArgumentException e) {
            throw error(n, key + ": " + e.getMessage());
        }
    }

    Port port(String key, int def) throws ConfigException {
        Node n = get(key);
        if (n == null) {
            return Port.defaulted(def);
        }
        int p = (int) integer(key, def, 1, 65535);
        return new Port(p, true, file + ":" + line(n));
    }

    String scalar(Node n, String key) throws ConfigException {
        if (!(n instanceof ScalarNode s)) {
            throw error(n, key + " must be a single value, found " + kind(n));
        }
        return s.getValue();
    }

    ConfigException error(Node at, String reason) {
        return new ConfigException(file, at == null ? 1 : line(at), reason);
    }

    ConfigException error(int line, String reason) {
        return new ConfigException(file, line, reason);
    }

    static int line(Node n) {
        return n.getStartMark().getLine() + 1;
    }

    private static boolean isNull(Node n) {
        return n instanceof ScalarNode s && s.getTag().equals(Tag.NULL);
    }

    private static String kind(Node n) {
        return switch (n) {
            case MappingNode m -> "a mapping";
            case SequenceNode s -> "a list";
            default -> "'" + ((ScalarNode) n).getValue() + "'";
        };
    }
}
