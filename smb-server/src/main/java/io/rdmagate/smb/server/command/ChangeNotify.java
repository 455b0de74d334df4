package io.rdmagate.smb.server.command;

import io.rdmagate.smb.mserref.NtStatus;
import io.rdmagate.smb.mssmb2.Smb2ChangeNotify;
import io.rdmagate.smb.mssmb2.Smb2DecodeException;
import io.rdmagate.smb.mssmb2.Smb2QueryDirectory;
import io.rdmagate.smb.server.Command;
import io.rdmagate.smb.server.Ctx;
import io.rdmagate.smb.server.Open;
import io.rdmagate.smb.server.SmbConnection;
import io.rdmagate.smb.server.SmbException;
import io.rdmagate.vfs.FileHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * CHANGE_NOTIFY (MS-SMB2 3.3.5.19): the request waits (STATUS_PENDING) until an entry of the
 * directory changes, then completes with FILE_NOTIFY_INFORMATION (MS-FSCC 2.7.1). Changes made
 * through this server's SMB opens are reported; changes by other protocols or on the host are not
 * seen yet (the vfs has no change feed). Closing the directory completes the request with
 * STATUS_NOTIFY_CLEANUP.
 */
public final class ChangeNotify implements Command {
    public static final int ACTION_ADDED = 1;
    public static final int ACTION_REMOVED = 2;
    public static final int ACTION_MODIFIED = 3;
    public static final int ACTION_RENAMED_OLD_NAME = 4;
    public static final int ACTION_RENAMED_NEW_NAME = 5;
    static final int NOTIFY_CLEANUP = 0x0000010B;

    @Override
    public Needs needs() {
        return Needs.TREE;
    }

    @Override
    public void handle(Ctx c) throws SmbException, Smb2DecodeException {
        Smb2ChangeNotify.Request req = Smb2ChangeNotify.decode(c.msg);
        Open o = c.open(req.fileId());
        if (o.pipe() != null || !o.directory()) {
            throw new SmbException(NtStatus.INVALID_PARAMETER, "CHANGE_NOTIFY on a file");
        }
        if (Integer.toUnsignedLong(req.outputLength()) > c.server.config().maxIo()) {
            throw new SmbException(NtStatus.INVALID_PARAMETER, "OutputBufferLength " + req.outputLength());
        }
        SmbConnection.AsyncOp op = c.conn.goAsync(c);
        Watch w = new Watch(o, op, req.outputLength());
        c.server.watchers().add(w);
        op.onCancel(() -> {
            c.server.watchers().remove(w);
            op.complete(r -> r.status(NtStatus.CANCELLED));
        });
    }

    record Watch(Open open, SmbConnection.AsyncOp op, int outputLength) {
    }

    /** The pending CHANGE_NOTIFY requests by directory. */
    public static final class Watchers {
        private final Map<String, List<Watch>> byDir = new ConcurrentHashMap<>();

        static String key(FileHandle h) {
            return h.volumeId() + ":" + h.fileId();
        }

        void add(Watch w) {
            byDir.computeIfAbsent(key(w.open().handle()), k -> new CopyOnWriteArrayList<>()).add(w);
        }

        void remove(Watch w) {
            List<Watch> l = byDir.get(key(w.open().handle()));
            if (l != null) {
                l.remove(w);
            }
        }

        /** An entry {@code name} of directory {@code dir} changed. */
        public void changed(FileHandle dir, String name, int action) {
            List<Watch> l = byDir.get(key(dir));
            if (l == null || l.isEmpty()) {
                return;
            }
            for (Watch w : l) {
                l.remove(w);
                byte[] n = name.getBytes(StandardCharsets.UTF_16LE);
                int len = 12 + n.length;
                w.op().complete(r -> {
                    if (len > w.outputLength()) {
                        r.status(NtStatus.NOTIFY_ENUM_DIR);
                        r.length(Smb2ChangeNotify.write(r.body(9), 0));
                        return;
                    }
                    ByteBuffer b = r.body(8 + len);
                    b.putInt(Smb2QueryDirectory.OUTPUT_OFFSET, 0).putInt(Smb2QueryDirectory.OUTPUT_OFFSET + 4, action)
                            .putInt(Smb2QueryDirectory.OUTPUT_OFFSET + 8, n.length);
                    b.put(Smb2QueryDirectory.OUTPUT_OFFSET + 12, n);
                    r.length(Smb2ChangeNotify.write(b, len));
                });
            }
        }

        /** A file was written through an open: its directory sees a modification. */
        public void modified(Open o) {
            if (!byDir.isEmpty() && o.parentHandle() != null) {
                changed(o.parentHandle(), o.name(), ACTION_MODIFIED);
            }
        }

        /** The open closed: its pending notifications end with STATUS_NOTIFY_CLEANUP. */
        public void closed(Open o) {
            if (o.handle() == null) {
                return;
            }
            List<Watch> l = byDir.get(key(o.handle()));
            if (l == null) {
                return;
            }
            for (Watch w : l) {
                if (w.open() == o) {
                    l.remove(w);
                    w.op().complete(r -> {
                        r.status(NOTIFY_CLEANUP);
                        r.length(Smb2ChangeNotify.write(r.body(9), 0));
                    });
                }
            }
        }
    }

}
