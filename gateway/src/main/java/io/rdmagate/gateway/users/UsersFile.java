package io.rdmagate.gateway.users;

import io.rdmagate.gateway.config.ConfigException;
import io.rdmagate.gateway.config.ConfigParser;
import io.rdmagate.gateway.spi.config.GatewayConfig;
import io.rdmagate.gateway.spi.config.UserEntry;
import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.nodes.CollectionNode;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;

/**
 * Edits the top-level {@code users:} list of a configuration file as text, so that everything
 * else in the file, comments included, stays as it was. The file is validated before and after
 * the edit; entries are written one per line as flow mappings. A file that holds NT hashes
 * (password equivalents) gets mode 0600.
 */
public final class UsersFile {
    public enum Outcome { ADDED, REPLACED }

    private static final Pattern TRAILING_COMMENT = Pattern.compile("\\s+#.*$");
    private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rw-------");

    private UsersFile() {
    }

    /** Adds or replaces a user; creates the file from the embedded default if it does not exist. */
    public static Outcome add(Path file, UserEntry user) throws IOException, ConfigException {
        boolean exists = Files.exists(file);
        String text = exists ? Files.readString(file, StandardCharsets.UTF_8) : ConfigParser.defaultText();
        String source = file.toString();
        GatewayConfig before = ConfigParser.parse(source, text);
        boolean replace = before.users().stream().anyMatch(u -> u.name().equalsIgnoreCase(user.name()));
        String edited = withUser(source, text, user);
        writeOwnerOnly(file, edited);
        return replace ? Outcome.REPLACED : Outcome.ADDED;
    }

    /** Removes a user; false if the file has no such user. */
    public static boolean remove(Path file, String name) throws IOException, ConfigException {
        String text = Files.readString(file, StandardCharsets.UTF_8);
        GatewayConfig before = ConfigParser.parse(file.toString(), text);
        if (before.users().stream().noneMatch(u -> u.name().equalsIgnoreCase(name))) {
            return false;
        }
        writeOwnerOnly(file, withoutUser(file.toString(), text, name));
        return true;
    }

    public static List<UserEntry> list(Path file) throws IOException, ConfigException {
        return ConfigParser.parse(file).users();
    }

    /** The text with the user added or replaced; checked by parsing it again. */
    public static String withUser(String source, String text, UserEntry user) throws ConfigException {
        return edit(source, text, user.name(), user);
    }

    public static String withoutUser(String source, String text, String name) throws ConfigException {
        return edit(source, text, name, null);
    }

    private static String edit(String source, String text, String name, UserEntry put) throws ConfigException {
        GatewayConfig parsed = ConfigParser.parse(source, text);
        Lines lines = new Lines(text);
        NodeTuple users = usersTuple(text);
        if (users == null) {
            if (put != null) {
                lines.appendSection("users:", List.of("  - " + render(put)));
            }
        } else if (users.getValueNode() instanceof SequenceNode seq
                && seq.getFlowStyle() == DumperOptions.FlowStyle.BLOCK && !seq.getValue().isEmpty()) {
            editBlock(lines, seq, name, put);
        } else {
            // empty (users: with no value, or []), or a flow list: rewrite the section as a block list
            List<String> entries = new ArrayList<>();
            for (UserEntry u : parsed.users()) {
                if (!u.name().equalsIgnoreCase(name)) {
                    entries.add("  - " + render(u));
                } else if (put != null) {
                    entries.add("  - " + render(put));
                    put = null;
                }
            }
            if (put != null) {
                entries.add("  - " + render(put));
            }
            int keyLine = users.getKeyNode().getStartMark().getLine();
            // an empty value's marks point at the next token, which may be lines below: keep those lines
            int last = users.getValueNode() instanceof ScalarNode ? keyLine
                    : Math.max(keyLine, lastLine(users.getValueNode()));
            lines.replace(keyLine, last, withComment("users:", lines.get(keyLine)), entries);
        }
        String out = lines.text();
        ConfigParser.parse(source, out);
        return out;
    }

    private static void editBlock(Lines lines, SequenceNode seq, String name, UserEntry put) {
        String prefix = " ".repeat(seq.getStartMark().getColumn()) + "- ";
        for (Node entry : seq.getValue()) {
            if (name.equalsIgnoreCase(nameOf(entry))) {
                int first = dashLine(lines, entry);
                int last = lastLine(entry);
                lines.replace(first, last, null, put == null ? List.of() : List.of(prefix + render(put)));
                return;
            }
        }
        if (put != null) {
            lines.insertAfter(lastLine(seq.getValue().getLast()), prefix + render(put));
        }
    }

    static String render(UserEntry u) {
        return "{name: \"" + u.name() + "\", uid: " + u.uid() + ", gid: " + u.gid() + ", ntHash: " + u.ntHash() + "}";
    }

    private static NodeTuple usersTuple(String text) {
        Node root = new Yaml(new LoaderOptions()).compose(new StringReader(text));
        if (root instanceof MappingNode m) {
            for (NodeTuple t : m.getValue()) {
                if (t.getKeyNode() instanceof ScalarNode k && k.getValue().equals("users")) {
                    return t;
                }
            }
        }
        return null;
    }

    private static String nameOf(Node entry) {
        if (entry instanceof MappingNode m) {
            for (NodeTuple t : m.getValue()) {
                if (t.getKeyNode() instanceof ScalarNode k && k.getValue().equals("name")
                        && t.getValueNode() instanceof ScalarNode v) {
                    return v.getValue();
                }
            }
        }
        return null;
    }

    /** The line of an entry's '-' (0-based): its own line, or above when the dash stands alone. */
    private static int dashLine(Lines lines, Node entry) {
        int line = entry.getStartMark().getLine();
        int col = entry.getStartMark().getColumn();
        if (lines.get(line).substring(0, Math.min(col, lines.get(line).length())).strip().equals("-")) {
            return line;
        }
        int l = line - 1;
        while (l > 0 && !lines.get(l).strip().equals("-")) {
            l--;
        }
        return l;
    }

    /** The last line (0-based) that holds text of a node. */
    static int lastLine(Node n) {
        if (n instanceof CollectionNode<?> c && c.getFlowStyle() == DumperOptions.FlowStyle.FLOW) {
            return endLine(n);
        }
        return switch (n) {
            case MappingNode m when !m.getValue().isEmpty() -> lastLine(m.getValue().getLast().getValueNode());
            case SequenceNode s when !s.getValue().isEmpty() -> lastLine(s.getValue().getLast());
            default -> endLine(n);
        };
    }

    private static int endLine(Node n) {
        var end = n.getEndMark();
        int line = end.getLine();
        return end.getColumn() == 0 && line > n.getStartMark().getLine() ? line - 1 : line;
    }

    /** Keeps a trailing comment of the line being replaced. */
    private static String withComment(String head, String original) {
        Matcher m = TRAILING_COMMENT.matcher(original);
        return m.find() ? head + m.group() : head;
    }

    /**
     * Replaces {@code file} atomically with {@code text}: a new file gets mode 0600, an existing
     * one keeps only its owner's permission bits. For files that hold password equivalents.
     */
    static void writeOwnerOnly(Path file, String text) throws IOException {
        boolean exists = Files.exists(file);
        Path dir = file.toAbsolutePath().getParent();
        boolean posix = Files.getFileStore(dir).supportsFileAttributeView(PosixFileAttributeView.class);
        Path tmp = posix
                ? Files.createTempFile(dir, "." + file.getFileName() + ".", ".tmp",
                        PosixFilePermissions.asFileAttribute(OWNER_ONLY))
                : Files.createTempFile(dir, "." + file.getFileName() + ".", ".tmp");
        try {
            Files.writeString(tmp, text, StandardCharsets.UTF_8);
            if (posix && exists) {
                Set<PosixFilePermission> perms = Files.getPosixFilePermissions(file);
                perms.retainAll(Set.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE,
                        PosixFilePermission.OWNER_EXECUTE));
                Files.setPosixFilePermissions(tmp, perms);
            }
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    /** The file as lines, edited by line number (0-based, as SnakeYAML marks count). */
    private static final class Lines {
        private final List<String> lines;

        Lines(String text) {
            this.lines = new ArrayList<>(List.of(text.split("\n", -1)));
            if (text.isEmpty() || text.endsWith("\n")) {
                lines.removeLast();
            }
        }

        String get(int i) {
            return i < lines.size() ? lines.get(i) : "";
        }

        void replace(int first, int last, String head, List<String> with) {
            for (int i = Math.min(last, lines.size() - 1); i >= first; i--) {
                lines.remove(i);
            }
            List<String> add = new ArrayList<>();
            if (head != null) {
                add.add(head);
            }
            add.addAll(with);
            lines.addAll(Math.min(first, lines.size()), add);
        }

        void insertAfter(int line, String text) {
            lines.add(Math.min(line + 1, lines.size()), text);
        }

        void appendSection(String head, List<String> body) {
            if (!lines.isEmpty() && !lines.getLast().isBlank()) {
                lines.add("");
            }
            lines.add(head);
            lines.addAll(body);
        }

        String text() {
            return lines.isEmpty() ? "" : String.join("\n", lines) + "\n";
        }
    }
}
