package io.rdmagate.smbdirect;

import java.time.Duration;

/**
 * The limits of the SMB Direct server (MS-SMBD 3.1.1.1 names most of them), each checked when the
 * options are built.
 *
 * @param receiveCredits    receives posted per connection: the credits a client may hold (ReceiveCreditMax)
 * @param sendCredits       sends this side may have posted at once, and the credits it asks for (SendCreditTarget)
 * @param maxSendSize       the largest message this side sends (MaxSendSize); the client's MaxReceiveSize may lower it
 * @param maxReceiveSize    the size of each receive buffer: the largest message a client may send (MaxReceiveSize)
 * @param maxFragmentedSize the largest SMB2 message a client may send in fragments (MaxFragmentedSize)
 * @param maxReadWriteSize  the largest RDMA transfer of one READ or WRITE (MaxReadWriteSize)
 * @param maxDescriptors    buffer descriptors one READ or WRITE may name
 * @param maxConnections    SMB Direct connections open at once; a connect beyond is rejected
 * @param negotiateTimeout  time a new connection has to send its Negotiate Request
 * @param keepaliveInterval idle time after which a keep-alive asks the client to answer
 *                          (KeepaliveInterval); a client that sends nothing for another interval is disconnected
 */
public record SmbDirectOptions(int receiveCredits, int sendCredits, int maxSendSize, int maxReceiveSize,
        int maxFragmentedSize, int maxReadWriteSize, int maxDescriptors, int maxConnections,
        Duration negotiateTimeout, Duration keepaliveInterval) {

    /** MS-SMBD 3.1.1.1 minimums: a receive of 128 bytes, a fragmented message of 128 KiB. */
    public static final int MIN_RECEIVE_SIZE = 128;
    public static final int MIN_FRAGMENTED_SIZE = 131072;

    public SmbDirectOptions {
        if (receiveCredits < 2 || receiveCredits > 65535) {
            throw new IllegalArgumentException("receiveCredits must be 2..65535, not " + receiveCredits);
        }
        if (sendCredits < 2 || sendCredits > 65535) {
            throw new IllegalArgumentException("sendCredits must be 2..65535, not " + sendCredits);
        }
        if (maxSendSize < MIN_RECEIVE_SIZE || maxReceiveSize < MIN_RECEIVE_SIZE) {
            throw new IllegalArgumentException("maxSendSize and maxReceiveSize must be at least " + MIN_RECEIVE_SIZE);
        }
        if (maxFragmentedSize < MIN_FRAGMENTED_SIZE) {
            throw new IllegalArgumentException("maxFragmentedSize must be at least " + MIN_FRAGMENTED_SIZE);
        }
        if (maxReadWriteSize < 4096) {
            throw new IllegalArgumentException("maxReadWriteSize must be at least 4096");
        }
        if (maxDescriptors < 1 || maxDescriptors > 1024) {
            throw new IllegalArgumentException("maxDescriptors must be 1..1024");
        }
        if (maxConnections < 1) {
            throw new IllegalArgumentException("maxConnections must be positive");
        }
        if (negotiateTimeout.isNegative() || negotiateTimeout.isZero()
                || keepaliveInterval.isNegative() || keepaliveInterval.isZero()) {
            throw new IllegalArgumentException("timeouts must be positive");
        }
    }

    /**
     * What Windows and Linux use: 1364-byte messages (an Ethernet frame's worth after the iWARP
     * headers), 1 MiB fragmented messages, 8 MiB RDMA transfers; 64 credits each way.
     */
    public static SmbDirectOptions defaults() {
        return new SmbDirectOptions(64, 64, 1364, 1364, 1 << 20, 8 << 20, 16, 256, Duration.ofSeconds(5),
                Duration.ofSeconds(120));
    }

    public SmbDirectOptions withMaxReadWriteSize(int size) {
        return new SmbDirectOptions(receiveCredits, sendCredits, maxSendSize, maxReceiveSize, maxFragmentedSize, size,
                maxDescriptors, maxConnections, negotiateTimeout, keepaliveInterval);
    }

    public SmbDirectOptions withTimeouts(Duration negotiate, Duration keepalive) {
        return new SmbDirectOptions(receiveCredits, sendCredits, maxSendSize, maxReceiveSize, maxFragmentedSize,
                maxReadWriteSize, maxDescriptors, maxConnections, negotiate, keepalive);
    }
}
