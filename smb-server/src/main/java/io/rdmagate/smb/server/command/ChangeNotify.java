package io.rdmagate.smb.server.command;

import io.rdmagate.smb.mserref.NtStatus;
import io.rdmagate.smb.mssmb2.Smb2ChangeNotify;
import io.rdmagate.smb.mssmb2.Smb2DecodeException;
import io.rdmagate.smb.mssmb2.Smb2QueryDirectory;
import io.rdmagate.smb.server.Access;
import io.rdmagate.smb.server.Command;
import io.rdmagate.smb.server.Ctx;
import io.rdmagate.smb.server.Open;
import io.rdmagate.smb.server.Reply;
import io.rdmagate.smb.server.SmbConnection;
import io.rdmagate.smb.server.SmbException;
import io.rdmagate.vfs.DirectoryChange;
import io.rdmagate.vfs.DirectoryListener;
import io.rdmagate.vfs.DirectoryWatch;
import io.rdmagate.vfs.VfsException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * CHANGE_NOTIFY (MS-SMB2 3.3.5.19). The first request on a directory open starts the vfs's change
 * feed for that directory ({@code VirtualFileSystem.watch}: changes through SMB, NFS or on the
 * host alike), with the request's CompletionFilter; from then on the open collects the changes
 * that pass the filter. A request completes at once with what was collected, or waits
 * (STATUS_PENDING) for the next change, and answers FILE_NOTIFY_INFORMATION entries (MS-FSCC
 * 2.7.1), or STATUS_NOTIFY_ENUM_DIR when they do not fit its OutputBufferLength or changes were
 * lost (more than the first request's OutputBufferLength collected while none waited). Before it
 * looks, the request settles the feed: changes made before it, its client's own included, are in.
 * Closing the directory completes waiting requests with STATUS_NOTIFY_CLEANUP. A rename within the
 * directory is reported by its old and new names (FILE_ACTION_RENAMED_OLD_NAME/NEW_NAME);
 * WATCH_TREE watches the directory itself only.
 */
public final class ChangeNotify implements Command {
    public static final int ACTION_ADDED = 1;
    public static final int ACTION_REMOVED = 2;
    public static final int ACTION_MODIFIED = 3;
    public static final int ACTION_RENAMED_OLD_NAME = 4;
    public static final int ACTION_RENAMED_NEW_NAME = 5;
    static final int NOTIFY_CLEANUP = 0x0000010B;
    /** FILE_NOTIFY_CHANGE_FILE_NAME | FILE_NOTIFY_CHANGE_DIR_NAME (MS-SMB2 2.2.35). */
    static final int NAME_CHANGES = 0x1 | 0x2;
    /** Changes an open collects while no request waits; more are reported as NOTIFY_ENUM_DIR. */
    static final int MAX_COLLECTED = 512;

    @Override
    public Needs needs() {
        return Needs.TREE;
    }

    @Override
    public void handle(Ctx c) throws SmbException, Smb2DecodeException, VfsException {
        Smb2ChangeNotify.Request req = Smb2ChangeNotify.decode(c.msg);
        Open o = c.open(req.fileId());
        if (o.pipe() != null || !o.directory()) {
            throw new SmbException(NtStatus.INVALID_PARAMETER, "CHANGE_NOTIFY on a file");
        }
        if (Integer.toUnsignedLong(req.outputLength()) > c.server.config().maxIo()) {
            throw new SmbException(NtStatus.INVALID_PARAMETER, "OutputBufferLength " + req.outputLength());
        }
        if (!o.can(Access.FILE_LIST_DIRECTORY)) {
            throw new SmbException(NtStatus.ACCESS_DENIED, "CHANGE_NOTIFY needs FILE_LIST_DIRECTORY"); // MS-SMB2 3.3.5.19
        }
        Feed feed = c.server.watchers().feed(o, req.completionFilter(), req.outputLength());
        feed.watch.settle(); // what this client changed before asking is in the feed
        synchronized (feed) {
            // checked under the feed's monitor: a delete made pending after this ends the request below
            if (c.server.opens().deletePending(o)) {
                throw new SmbException(NtStatus.DELETE_PENDING, "the directory is being deleted");
            }
            if (o.closing) { // a CLOSE sent after this request was handled first
                c.server.watchers().closed(o);
                c.reply.status(NOTIFY_CLEANUP);
                c.reply.length(Smb2ChangeNotify.write(c.reply.body(9), 0));
                return;
            }
            if (feed.overflowed || !feed.collected.isEmpty()) {
                feed.answer(c.reply, req.outputLength());
                return;
            }
            SmbConnection.AsyncOp op = c.conn.goAsync(c);
            Waiting w = new Waiting(op, req.outputLength());
            feed.waiting.add(w);
            c.conn.turnTaken(c); // a CHANGE_NOTIFY sent after this one waits behind it
            op.onCancel(() -> {
                synchronized (feed) {
                    feed.waiting.remove(w);
                }
                op.complete(r -> r.status(NtStatus.CANCELLED));
            });
        }
    }

    record Waiting(SmbConnection.AsyncOp op, int outputLength) {
    }

    record Change(int action, String name) {
    }

    /** The changes one directory open collects, and the requests waiting for them. */
    static final class Feed implements DirectoryListener {
        final int filter;
        /**
         * How many bytes of changes the open keeps while no request waits: the first request's
         * OutputBufferLength, as Windows sizes the buffer; more are reported as NOTIFY_ENUM_DIR.
         */
        final long bufferSize;
        final ArrayDeque<Change> collected = new ArrayDeque<>();
        long collectedBytes;
        final ArrayDeque<Waiting> waiting = new ArrayDeque<>();
        boolean overflowed;
        DirectoryWatch watch;

        Feed(int filter, int bufferSize) {
            this.filter = filter;
            this.bufferSize = Integer.toUnsignedLong(bufferSize);
        }

        @Override
        public synchronized void changed(DirectoryChange change, String name) {
            int action;
            switch (change) {
                case ADDED, REMOVED, RENAMED_FROM, RENAMED_TO -> {
                    if ((filter & NAME_CHANGES) == 0) {
                        return;
                    }
                    action = switch (change) {
                        case ADDED -> ACTION_ADDED;
                        case REMOVED -> ACTION_REMOVED;
                        case RENAMED_FROM -> ACTION_RENAMED_OLD_NAME;
                        default -> ACTION_RENAMED_NEW_NAME;
                    };
                }
                case MODIFIED -> {
                    if ((filter & ~NAME_CHANGES) == 0) {
                        return;
                    }
                    action = ACTION_MODIFIED;
                }
                default -> {
                    overflowed = true;
                    action = 0;
                }
            }
            if (action != 0) {
                Change c = new Change(action, name);
                if (!c.equals(collected.peekLast())) { // the kernel repeats MODIFIED per write
                    collected.add(c);
                    collectedBytes = align4(collectedBytes) + 12 + 2L * name.length();
                }
                if (collected.size() > MAX_COLLECTED || waiting.isEmpty() && collectedBytes > bufferSize) {
                    overflowed = true;
                    collected.clear();
                    collectedBytes = 0;
                }
            }
            Waiting w = waiting.poll();
            if (w != null) {
                w.op().complete(r -> {
                    synchronized (this) {
                        answer(r, w.outputLength());
                    }
                });
            }
        }

        /** Answers with everything collected (MS-FSCC 2.7.1), or NOTIFY_ENUM_DIR; empties the collection. */
        void answer(Reply r, int outputLength) {
            List<byte[]> names = new ArrayList<>();
            int length = 0;
            for (Change c : collected) {
                byte[] n = c.name().getBytes(StandardCharsets.UTF_16LE);
                names.add(n);
                length = align4(length) + 12 + n.length;
            }
            boolean fits = !overflowed && length <= Integer.toUnsignedLong(outputLength);
            List<Change> changes = List.copyOf(collected);
            collected.clear();
            collectedBytes = 0;
            overflowed = false;
            if (!fits) {
                r.status(NtStatus.NOTIFY_ENUM_DIR);
                r.length(Smb2ChangeNotify.write(r.body(9), 0));
                return;
            }
            ByteBuffer b = r.body(8 + length);
            int at = Smb2QueryDirectory.OUTPUT_OFFSET;
            for (int i = 0; i < changes.size(); i++) {
                byte[] n = names.get(i);
                int entry = 12 + n.length;
                int next = i + 1 < changes.size() ? align4(entry) : 0;
                b.putInt(at, next).putInt(at + 4, changes.get(i).action()).putInt(at + 8, n.length);
                b.put(at + 12, n);
                at += next;
            }
            r.length(Smb2ChangeNotify.write(b, length));
        }

        private static int align4(int n) {
            return (n + 3) & ~3;
        }

        private static long align4(long n) {
            return (n + 3) & ~3L;
        }

        synchronized void close() {
            if (watch != null) {
                watch.close();
            }
            end(NOTIFY_CLEANUP);
        }

        /** Completes the waiting requests with {@code status} and no changes. */
        synchronized void end(int status) {
            for (Waiting w = waiting.poll(); w != null; w = waiting.poll()) {
                w.op().complete(r -> {
                    r.status(status);
                    r.length(Smb2ChangeNotify.write(r.body(9), 0));
                });
            }
        }
    }

    /** The change feeds of the server's directory opens. */
    public static final class Watchers {
        private final Map<Open, Feed> byOpen = new ConcurrentHashMap<>();

        /** The open's feed, started with {@code filter} and buffer size {@code outputLength} by its first CHANGE_NOTIFY. */
        Feed feed(Open o, int filter, int outputLength) throws VfsException {
            Feed f = byOpen.get(o);
            if (f != null) {
                return f;
            }
            Feed fresh = new Feed(filter, outputLength);
            synchronized (fresh) { // no change is delivered before the watch is recorded
                fresh.watch = o.vfs().watch(o.handle(), fresh);
                Feed raced = byOpen.putIfAbsent(o, fresh);
                if (raced != null) {
                    fresh.watch.close();
                    return raced;
                }
            }
            return fresh;
        }

        /**
         * The directory these opens hold is to be deleted: their waiting requests complete with
         * STATUS_DELETE_PENDING, as Windows answers them (smbtorture smb2.notify.rmdir*).
         */
        public void deletePending(List<Open> opens) {
            for (Open o : opens) {
                Feed f = byOpen.get(o);
                if (f != null) {
                    f.end(NtStatus.DELETE_PENDING);
                }
            }
        }

        /** The open closed: its feed ends, waiting requests complete with STATUS_NOTIFY_CLEANUP. */
        public void closed(Open o) {
            Feed f = byOpen.remove(o);
            if (f != null) {
                f.close();
            }
        }
    }
}
