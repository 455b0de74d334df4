package io.rdmagate.rdma.softiwarp;

import java.nio.channels.SocketChannel;
import java.time.Duration;

/** Closes a socket when an exchange on it takes longer than allowed (blocking NIO has no read timeout). */
final class Deadline {
    private final Thread watchdog;

    private Deadline(Thread watchdog) {
        this.watchdog = watchdog;
    }

    static Deadline arm(SocketChannel ch, Duration limit) {
        Thread t = Thread.ofVirtual().name("mpa-deadline").start(() -> {
            try {
                Thread.sleep(limit);
                SoftIwarpDevice.closeQuietly(ch);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        return new Deadline(t);
    }

    void disarm() {
        watchdog.interrupt();
    }
}
