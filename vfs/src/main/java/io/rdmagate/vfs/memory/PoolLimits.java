package io.rdmagate.vfs.memory;

import java.time.Duration;

/**
 * Bounds of an {@link IoMemoryPool}.
 *
 * @param maxBytes           all slabs together never exceed this
 * @param maxBytesPerAccount one client (connection) never holds more leased bytes than this
 * @param slabBytes          unit of allocation and of device registration
 * @param minBufferBytes     smallest buffer (power of two)
 * @param maxBufferBytes     largest buffer (power of two, at most {@code slabBytes}); the largest I/O
 * @param leaseWait          how long a lease waits for memory before it fails
 */
public record PoolLimits(
        long maxBytes,
        long maxBytesPerAccount,
        int slabBytes,
        int minBufferBytes,
        int maxBufferBytes,
        Duration leaseWait) {

    public static final PoolLimits DEFAULT = new PoolLimits(
            256L << 20, 64L << 20, 4 << 20, 4 << 10, 1 << 20, Duration.ofSeconds(5));

    public PoolLimits {
        if (Integer.bitCount(minBufferBytes) != 1 || Integer.bitCount(maxBufferBytes) != 1) {
            throw new IllegalArgumentException("buffer sizes must be powers of two");
        }
        if (minBufferBytes < 512 || minBufferBytes > maxBufferBytes) {
            throw new IllegalArgumentException("min buffer " + minBufferBytes + " must be in [512, max buffer]");
        }
        if (slabBytes < maxBufferBytes || slabBytes % maxBufferBytes != 0) {
            throw new IllegalArgumentException("slab size " + slabBytes + " must be a multiple of the max buffer " + maxBufferBytes);
        }
        if (maxBytes < slabBytes) {
            throw new IllegalArgumentException("pool size " + maxBytes + " is smaller than one slab " + slabBytes);
        }
        if (maxBytesPerAccount < maxBufferBytes) {
            throw new IllegalArgumentException("per-client limit " + maxBytesPerAccount + " is smaller than one max buffer");
        }
        if (leaseWait.isNegative()) {
            throw new IllegalArgumentException("negative lease wait");
        }
    }
}
