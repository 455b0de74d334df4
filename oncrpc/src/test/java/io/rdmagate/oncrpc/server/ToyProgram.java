package io.rdmagate.oncrpc.server;

import io.rdmagate.oncrpc.rpc.AuthStat;
import io.rdmagate.oncrpc.rpc.AuthSys;
import io.rdmagate.oncrpc.rpc.RpcRejectedException;
import io.rdmagate.oncrpc.xdr.XdrException;
import io.rdmagate.oncrpc.xdr.XdrMessage;
import io.rdmagate.vfs.memory.IoMemory;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/** A program for the transport and dispatcher tests: versions 2..4 of program 0x20000099. */
public final class ToyProgram implements RpcProgram {
    public static final int PROG = 0x20000099;
    public static final int NULL = 0;
    public static final int ECHO = 1;       // opaque<64> -> the same opaque
    public static final int FAIL = 2;       // throws a RuntimeException: SYSTEM_ERR
    public static final int BLOCK = 3;      // waits for a permit of `gate`, then returns an int
    public static final int COUNT = 4;      // non-idempotent: returns how often it ran
    public static final int PAYLOAD = 5;    // returns the IoMemory of `payloads` as a DDP-eligible payload
    public static final int WHOAMI = 6;     // needs AUTH_SYS (else AUTH_TOOWEAK): returns the uid

    public final AtomicInteger counted = new AtomicInteger();
    public final AtomicInteger entered = new AtomicInteger();
    public final Semaphore gate = new Semaphore(0);
    public final ConcurrentLinkedQueue<CountDownLatch> countStarted = new ConcurrentLinkedQueue<>();
    public volatile CountDownLatch countRelease;
    public volatile Supplier<IoMemory> payloads;
    /** What the dispatcher reported, in order. */
    public final ConcurrentLinkedQueue<Connection> opened = new ConcurrentLinkedQueue<>();
    public final ConcurrentLinkedQueue<Connection> closed = new ConcurrentLinkedQueue<>();
    public volatile Connection lastCaller;

    @Override
    public int program() {
        return PROG;
    }

    @Override
    public String name() {
        return "toy";
    }

    @Override
    public int lowVersion() {
        return 2;
    }

    @Override
    public int highVersion() {
        return 4;
    }

    @Override
    public boolean isNonIdempotent(int version, int procedure) {
        return procedure == COUNT;
    }

    @Override
    public void connectionOpened(Connection connection) {
        opened.add(connection);
    }

    @Override
    public void connectionClosed(Connection connection) {
        closed.add(connection);
    }

    @Override
    public XdrMessage handle(RpcCall call) throws XdrException, RpcErrorException, RpcRejectedException {
        lastCaller = call.connection();
        switch (call.procedure()) {
            case NULL -> {
                return call.success().finish();
            }
            case ECHO -> {
                byte[] data = call.decoder().readOpaque(64);
                return call.success().writeOpaque(data).finish();
            }
            case FAIL -> throw new IllegalStateException("the toy fails on purpose");
            case BLOCK -> {
                entered.incrementAndGet();
                try {
                    if (!gate.tryAcquire(30, TimeUnit.SECONDS)) {
                        throw RpcErrorException.systemError("gate never opened");
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw RpcErrorException.systemError("interrupted");
                }
                return call.success().writeInt(entered.get()).finish();
            }
            case COUNT -> {
                int n = counted.incrementAndGet();
                CountDownLatch started = countStarted.poll();
                if (started != null) {
                    started.countDown();
                }
                CountDownLatch release = countRelease;
                if (release != null) {
                    try {
                        release.await(30, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
                return call.success().writeInt(n).finish();
            }
            case PAYLOAD -> {
                return call.success().writeInt(1).writePayload(payloads.get()).writeInt(2).finish();
            }
            case WHOAMI -> {
                AuthSys s = call.authSys();
                if (s == null) {
                    throw RpcRejectedException.authError(AuthStat.AUTH_TOOWEAK, "AUTH_SYS required");
                }
                return call.success().writeInt(s.uid()).finish();
            }
            default -> throw RpcErrorException.procUnavailable(call.procedure());
        }
    }
}
