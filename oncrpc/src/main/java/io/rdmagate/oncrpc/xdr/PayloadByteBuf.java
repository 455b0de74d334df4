package io.rdmagate.oncrpc.xdr;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.buffer.UnpooledDirectByteBuf;
import io.rdmagate.vfs.memory.IoMemory;

/**
 * An {@link IoMemory} seen as a Netty buffer without a copy: the buffer wraps the memory's
 * segment, and when Netty frees the buffer (after the bytes are written) the memory is released.
 * The buffer takes over one reference of the memory.
 */
public final class PayloadByteBuf extends UnpooledDirectByteBuf {
    private final IoMemory memory;

    private PayloadByteBuf(IoMemory memory) {
        super(UnpooledByteBufAllocator.DEFAULT, memory.segment().asByteBuffer(), (int) memory.length());
        this.memory = memory;
    }

    /** Wraps {@code memory}, taking over the caller's reference. */
    public static ByteBuf wrap(IoMemory memory) {
        if (memory.length() > Integer.MAX_VALUE - 8) {
            memory.release();
            throw new IllegalArgumentException("payload of " + memory.length() + " bytes");
        }
        return new PayloadByteBuf(memory);
    }

    public IoMemory memory() {
        return memory;
    }

    @Override
    protected void deallocate() {
        super.deallocate();
        memory.release();
    }
}
