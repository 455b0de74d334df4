package io.rdmagate.rdma.verbs;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.util.Optional;

/**
 * rdma-core's {@code libibverbs.so.1} through {@code java.lang.foreign}: downcall handles for the
 * exported functions the verbs provider calls (their default symbol versions, as a C program
 * linked against the library gets). No native code of ours is involved. Functions that
 * {@code <infiniband/verbs.h>} defines {@code static inline} ({@code ibv_post_send},
 * {@code ibv_poll_cq}, ...) are not symbols: they are reached through the context's ops table
 * ({@link IbvAbi#CONTEXT_OPS}). errno is captured on every call that reports failure through it.
 *
 * <p>Loaded once per process; {@link #get()} throws {@link VerbsUnavailableException} with the
 * reason (library missing, platform not supported) every time after a failed load.
 */
final class Libibverbs {
    static final String LIBRARY = "libibverbs.so.1";
    private static final Linker LINKER = Linker.nativeLinker();
    private static final StructLayout CAPTURE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CAPTURE.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT;
    private static final ValueLayout PTR = ValueLayout.ADDRESS;
    private static Libibverbs instance;
    private static String failure;

    /** {@code struct ibv_device **ibv_get_device_list(int *num_devices)}; errno on NULL. */
    final MethodHandle getDeviceList;
    /** {@code void ibv_free_device_list(struct ibv_device **list)}. */
    final MethodHandle freeDeviceList;
    /** {@code struct ibv_context *ibv_open_device(struct ibv_device *device)}; errno on NULL. */
    final MethodHandle openDevice;
    /** {@code int ibv_close_device(struct ibv_context *context)}. */
    final MethodHandle closeDevice;
    /** {@code int ibv_query_device(struct ibv_context *, struct ibv_device_attr *)}: 0 or an errno value. */
    final MethodHandle queryDevice;
    /** {@code int ibv_query_port(struct ibv_context *, uint8_t port_num, struct ibv_port_attr *)}. */
    final MethodHandle queryPort;
    /** {@code int ibv_query_gid(struct ibv_context *, uint8_t port_num, int index, union ibv_gid *)}. */
    final MethodHandle queryGid;
    /** {@code struct ibv_pd *ibv_alloc_pd(struct ibv_context *)}; errno on NULL. */
    final MethodHandle allocPd;
    /** {@code int ibv_dealloc_pd(struct ibv_pd *)}: 0 or an errno value. */
    final MethodHandle deallocPd;
    /** {@code struct ibv_mr *ibv_reg_mr(struct ibv_pd *, void *addr, size_t length, int access)}; errno on NULL. */
    final MethodHandle regMr;
    /** {@code int ibv_dereg_mr(struct ibv_mr *)}: 0 or an errno value. */
    final MethodHandle deregMr;
    /**
     * {@code int _ibv_query_gid_ex(ctx, uint32_t port, uint32_t index, struct ibv_gid_entry *, uint32_t flags,
     * size_t entry_size)} (IBVERBS_1.11, rdma-core 32): the GID's type and network device; absent in older
     * libraries.
     */
    final Optional<MethodHandle> queryGidEx;
    /** {@code struct ibv_comp_channel *ibv_create_comp_channel(struct ibv_context *)}; errno on NULL. */
    final MethodHandle createCompChannel;
    /** {@code int ibv_destroy_comp_channel(struct ibv_comp_channel *)}: 0 or an errno value (EBUSY while CQs use it). */
    final MethodHandle destroyCompChannel;
    /**
     * {@code struct ibv_cq *ibv_create_cq(struct ibv_context *, int cqe, void *cq_context, struct ibv_comp_channel *,
     * int comp_vector)}; errno on NULL.
     */
    final MethodHandle createCq;
    /** {@code int ibv_destroy_cq(struct ibv_cq *)}: 0 or an errno value (EBUSY while queue pairs use it). */
    final MethodHandle destroyCq;
    /**
     * {@code int ibv_get_cq_event(struct ibv_comp_channel *, struct ibv_cq **cq, void **cq_context)}: blocks
     * until an armed CQ of the channel has a completion; 0, or -1 with errno.
     */
    final MethodHandle getCqEvent;
    /** {@code void ibv_ack_cq_events(struct ibv_cq *, unsigned int nevents)}. */
    final MethodHandle ackCqEvents;
    /** {@code int ibv_modify_qp(struct ibv_qp *, struct ibv_qp_attr *, int attr_mask)}: 0 or an errno value. */
    final MethodHandle modifyQp;

    private Libibverbs(SymbolLookup lib) throws VerbsUnavailableException {
        getDeviceList = fn(lib, "ibv_get_device_list", FunctionDescriptor.of(PTR, PTR));
        freeDeviceList = fn(lib, "ibv_free_device_list", FunctionDescriptor.ofVoid(PTR));
        openDevice = fn(lib, "ibv_open_device", FunctionDescriptor.of(PTR, PTR));
        closeDevice = fn(lib, "ibv_close_device", FunctionDescriptor.of(INT, PTR));
        queryDevice = fn(lib, "ibv_query_device", FunctionDescriptor.of(INT, PTR, PTR));
        queryPort = fn(lib, "ibv_query_port", FunctionDescriptor.of(INT, PTR, ValueLayout.JAVA_BYTE, PTR));
        queryGid = fn(lib, "ibv_query_gid", FunctionDescriptor.of(INT, PTR, ValueLayout.JAVA_BYTE, INT, PTR));
        allocPd = fn(lib, "ibv_alloc_pd", FunctionDescriptor.of(PTR, PTR));
        deallocPd = fn(lib, "ibv_dealloc_pd", FunctionDescriptor.of(INT, PTR));
        regMr = fn(lib, "ibv_reg_mr", FunctionDescriptor.of(PTR, PTR, PTR, ValueLayout.JAVA_LONG, INT));
        deregMr = fn(lib, "ibv_dereg_mr", FunctionDescriptor.of(INT, PTR));
        queryGidEx = lib.find("_ibv_query_gid_ex").map(a -> LINKER.downcallHandle(a,
                FunctionDescriptor.of(INT, PTR, INT, INT, PTR, INT, ValueLayout.JAVA_LONG)));
        createCompChannel = fn(lib, "ibv_create_comp_channel", FunctionDescriptor.of(PTR, PTR));
        destroyCompChannel = fn(lib, "ibv_destroy_comp_channel", FunctionDescriptor.of(INT, PTR));
        createCq = fn(lib, "ibv_create_cq", FunctionDescriptor.of(PTR, PTR, INT, PTR, PTR, INT));
        destroyCq = fn(lib, "ibv_destroy_cq", FunctionDescriptor.of(INT, PTR));
        getCqEvent = fn(lib, "ibv_get_cq_event", FunctionDescriptor.of(INT, PTR, PTR, PTR));
        ackCqEvents = fn(lib, "ibv_ack_cq_events", FunctionDescriptor.ofVoid(PTR, INT));
        modifyQp = fn(lib, "ibv_modify_qp", FunctionDescriptor.of(INT, PTR, PTR, INT));
    }

    /** The library, loaded on first use. */
    static synchronized Libibverbs get() throws VerbsUnavailableException {
        if (instance != null) {
            return instance;
        }
        if (failure != null) {
            throw new VerbsUnavailableException(failure);
        }
        try {
            IbvAbi.check();
            SymbolLookup lib;
            try {
                lib = SymbolLookup.libraryLookup(LIBRARY, Arena.global());
            } catch (IllegalArgumentException e) {
                throw new VerbsUnavailableException(LIBRARY + " cannot be loaded (" + e.getMessage()
                        + "): install rdma-core's libibverbs (Debian and Ubuntu: apt install libibverbs1 ibverbs-providers)");
            }
            instance = new Libibverbs(lib);
            return instance;
        } catch (VerbsUnavailableException e) {
            failure = e.getMessage();
            throw e;
        }
    }

    /** A capture buffer for errno, for the calls made with it. */
    static MemorySegment errnoBuffer(Arena arena) {
        return arena.allocate(CAPTURE);
    }

    static int errno(MemorySegment capture) {
        return (int) ERRNO.get(capture, 0L);
    }

    private static MethodHandle fn(SymbolLookup lib, String name, FunctionDescriptor d) throws VerbsUnavailableException {
        MemorySegment addr = lib.find(name).orElseThrow(() -> new VerbsUnavailableException(LIBRARY + " has no " + name
                + ": it is not rdma-core's libibverbs"));
        return LINKER.downcallHandle(addr, d, Linker.Option.captureCallState("errno"));
    }
}
