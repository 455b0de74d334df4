package io.rdmagate.nfs.v4;

import io.rdmagate.nfs.NfsExport;
import io.rdmagate.nfs.NfsExports;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The NFSv4 pseudo-filesystem (RFC 8881 §7.3): the read-only directories above the exports, built
 * from their {@code nfsPath}s, so that PUTROOTFH and LOOKUP reach every export from one root. An
 * export at "/" is the root itself. A LOOKUP that reaches an export's path crosses into the
 * export's root, a filesystem of its own (another fsid), as knfsd's junctions do.
 *
 * <p>A node's handle is its id, the first eight bytes of the SHA-256 of its path: stable across
 * restarts as long as the exports' paths are.
 */
public final class PseudoFs {
    /** A directory of the pseudo-filesystem; {@code children} names lead to nodes or exports. */
    public static final class Node {
        private final String path;
        private final long id;
        private final Node parent;
        private final Map<String, Object> children = new TreeMap<>();

        Node(String path, Node parent) {
            this.path = path;
            this.parent = parent;
            this.id = idOf(path);
        }

        public String path() {
            return path;
        }

        public long id() {
            return id;
        }

        /** The parent node, or null for the root. */
        public Node parent() {
            return parent;
        }

        /** Each child by name: a {@link Node} or an {@link NfsExport} (a junction). */
        public Map<String, Object> children() {
            return Collections.unmodifiableMap(children);
        }
    }

    private final Node root;
    private final NfsExport rootExport;
    private final Map<Long, Node> byId = new HashMap<>();
    private final Map<Integer, Node> parentOfExport = new HashMap<>();

    public PseudoFs(NfsExports exports) {
        NfsExport atRoot = null;
        for (NfsExport e : exports.all()) {
            if (components(e.nfsPath()).isEmpty()) {
                atRoot = e;
            }
        }
        this.rootExport = atRoot;
        this.root = new Node("/", null);
        byId.put(root.id, root);
        if (atRoot != null) {
            return; // the root export's own tree is what clients see under "/"
        }
        for (NfsExport e : exports.all()) {
            List<String> parts = components(e.nfsPath());
            Node n = root;
            for (int i = 0; i < parts.size() - 1; i++) {
                String name = parts.get(i);
                Object child = n.children.get(name);
                if (child instanceof NfsExport) {
                    break; // an export inside another export's path: the outer one's tree wins
                }
                if (child == null) {
                    Node c = new Node(n.path.equals("/") ? "/" + name : n.path + "/" + name, n);
                    n.children.put(name, c);
                    byId.put(c.id, c);
                    child = c;
                }
                n = (Node) child;
            }
            String last = parts.getLast();
            if (!n.children.containsKey(last)) {
                n.children.put(last, e);
                parentOfExport.put(e.id(), n);
            }
        }
    }

    /** The export mounted at "/", or null when the root is a pseudo directory. */
    public NfsExport rootExport() {
        return rootExport;
    }

    public Node root() {
        return root;
    }

    /** The node with this id, or null (its handle is stale). */
    public Node node(long id) {
        return byId.get(id);
    }

    /** The pseudo directory an export's root sits in, or null for an export at "/". */
    public Node parentOf(NfsExport e) {
        return parentOfExport.get(e.id());
    }

    static List<String> components(String path) {
        List<String> out = new ArrayList<>();
        for (String s : path.split("/")) {
            if (!s.isEmpty()) {
                out.add(s);
            }
        }
        return out;
    }

    static long idOf(String path) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(path.getBytes(StandardCharsets.UTF_8));
            long v = 0;
            for (int i = 0; i < 8; i++) {
                v = (v << 8) | (d[i] & 0xff);
            }
            return v & Long.MAX_VALUE;
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
