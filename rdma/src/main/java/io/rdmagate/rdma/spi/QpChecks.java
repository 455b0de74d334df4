package io.rdmagate.rdma.spi;

import io.rdmagate.rdma.DeviceLimits;
import io.rdmagate.rdma.QpConfig;
import io.rdmagate.rdma.RdmaException;

/** The checks a software provider makes of a queue pair's configuration and connection private data. */
public final class QpChecks {
    private QpChecks() {
    }

    public static void check(String device, DeviceLimits l, QpConfig c, byte[] privateData) throws RdmaException {
        if (c.maxSendWr() <= 0 || c.maxSendWr() > l.maxSendWr() || c.maxRecvWr() <= 0 || c.maxRecvWr() > l.maxRecvWr()) {
            throw new RdmaException("work request limits out of range for " + device);
        }
        if (c.maxSge() <= 0 || c.maxSge() > l.maxSge()) {
            throw new RdmaException("SGE limit " + c.maxSge() + " out of range (device: " + l.maxSge() + ")");
        }
        if (c.ird() < 0 || c.ird() > l.maxInboundReads() || c.ord() < 0 || c.ord() > l.maxOutboundReads()) {
            throw new RdmaException("IRD/ORD out of range for " + device);
        }
        if (!(c.sendCq() instanceof SerialCompletionQueue) || !(c.recvCq() instanceof SerialCompletionQueue)) {
            throw new RdmaException("completion queues of another device");
        }
        if (privateData.length > l.maxPrivateDataBytes()) {
            throw new RdmaException("private data of " + privateData.length + " bytes; the limit is "
                    + l.maxPrivateDataBytes());
        }
    }
}
