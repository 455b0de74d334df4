package io.rdmagate.rdma.verbs;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * rdma-core's {@code librdmacm.so.1} through {@code java.lang.foreign}: downcall handles for the
 * connection manager functions the verbs provider calls (default symbol versions,
 * {@code RDMACM_1.0}), each with errno captured (they return -1 and set errno: rdma_cm(7)). The
 * library opens its own context on every RDMA device ({@code rdma_get_devices}); the provider's
 * protection domains, completion queues and queue pairs are made on those contexts, as
 * {@code rdma_create_qp} requires the protection domain of the id's device.
 *
 * <p>Loaded once per process, after {@link Libibverbs} (librdmacm links against the same
 * {@code libibverbs.so.1}); {@link #get()} throws {@link VerbsUnavailableException} with the reason
 * every time after a failed load.
 */
final class Librdmacm {
    static final String LIBRARY = "librdmacm.so.1";
    private static final Linker LINKER = Linker.nativeLinker();
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT;
    private static final ValueLayout PTR = ValueLayout.ADDRESS;
    private static Librdmacm instance;
    private static String failure;

    /** {@code struct ibv_context **rdma_get_devices(int *num_devices)}; NULL-terminated, errno on NULL. */
    final MethodHandle getDevices;
    /** {@code void rdma_free_devices(struct ibv_context **list)}. */
    final MethodHandle freeDevices;
    /** {@code struct rdma_event_channel *rdma_create_event_channel(void)}; errno on NULL. */
    final MethodHandle createEventChannel;
    /** {@code void rdma_destroy_event_channel(struct rdma_event_channel *)}. */
    final MethodHandle destroyEventChannel;
    /** {@code int rdma_create_id(struct rdma_event_channel *, struct rdma_cm_id **, void *context, enum rdma_port_space)}. */
    final MethodHandle createId;
    /** {@code int rdma_destroy_id(struct rdma_cm_id *)}: blocks until the id's reported events are acked. */
    final MethodHandle destroyId;
    /** {@code int rdma_bind_addr(struct rdma_cm_id *, struct sockaddr *)}. */
    final MethodHandle bindAddr;
    /** {@code int rdma_listen(struct rdma_cm_id *, int backlog)}. */
    final MethodHandle listen;
    /** {@code int rdma_get_cm_event(struct rdma_event_channel *, struct rdma_cm_event **)}. */
    final MethodHandle getCmEvent;
    /** {@code int rdma_ack_cm_event(struct rdma_cm_event *)}. */
    final MethodHandle ackCmEvent;
    /** {@code int rdma_accept(struct rdma_cm_id *, struct rdma_conn_param *)}. */
    final MethodHandle accept;
    /** {@code int rdma_reject(struct rdma_cm_id *, const void *private_data, uint8_t private_data_len)}. */
    final MethodHandle reject;
    /** {@code int rdma_disconnect(struct rdma_cm_id *)}. */
    final MethodHandle disconnect;
    /** {@code int rdma_resolve_addr(struct rdma_cm_id *, struct sockaddr *src, struct sockaddr *dst, int timeout_ms)}. */
    final MethodHandle resolveAddr;
    /** {@code int rdma_resolve_route(struct rdma_cm_id *, int timeout_ms)}. */
    final MethodHandle resolveRoute;
    /** {@code int rdma_connect(struct rdma_cm_id *, struct rdma_conn_param *)}. */
    final MethodHandle connect;
    /** {@code int rdma_create_qp(struct rdma_cm_id *, struct ibv_pd *, struct ibv_qp_init_attr *)}. */
    final MethodHandle createQp;
    /** {@code void rdma_destroy_qp(struct rdma_cm_id *)}. */
    final MethodHandle destroyQp;

    private Librdmacm(SymbolLookup lib) throws VerbsUnavailableException {
        getDevices = fn(lib, "rdma_get_devices", FunctionDescriptor.of(PTR, PTR));
        freeDevices = fn(lib, "rdma_free_devices", FunctionDescriptor.ofVoid(PTR));
        createEventChannel = fn(lib, "rdma_create_event_channel", FunctionDescriptor.of(PTR));
        destroyEventChannel = fn(lib, "rdma_destroy_event_channel", FunctionDescriptor.ofVoid(PTR));
        createId = fn(lib, "rdma_create_id", FunctionDescriptor.of(INT, PTR, PTR, PTR, INT));
        destroyId = fn(lib, "rdma_destroy_id", FunctionDescriptor.of(INT, PTR));
        bindAddr = fn(lib, "rdma_bind_addr", FunctionDescriptor.of(INT, PTR, PTR));
        listen = fn(lib, "rdma_listen", FunctionDescriptor.of(INT, PTR, INT));
        getCmEvent = fn(lib, "rdma_get_cm_event", FunctionDescriptor.of(INT, PTR, PTR));
        ackCmEvent = fn(lib, "rdma_ack_cm_event", FunctionDescriptor.of(INT, PTR));
        accept = fn(lib, "rdma_accept", FunctionDescriptor.of(INT, PTR, PTR));
        reject = fn(lib, "rdma_reject", FunctionDescriptor.of(INT, PTR, PTR, ValueLayout.JAVA_BYTE));
        disconnect = fn(lib, "rdma_disconnect", FunctionDescriptor.of(INT, PTR));
        resolveAddr = fn(lib, "rdma_resolve_addr", FunctionDescriptor.of(INT, PTR, PTR, PTR, INT));
        resolveRoute = fn(lib, "rdma_resolve_route", FunctionDescriptor.of(INT, PTR, INT));
        connect = fn(lib, "rdma_connect", FunctionDescriptor.of(INT, PTR, PTR));
        createQp = fn(lib, "rdma_create_qp", FunctionDescriptor.of(INT, PTR, PTR, PTR));
        destroyQp = fn(lib, "rdma_destroy_qp", FunctionDescriptor.ofVoid(PTR));
    }

    /** The library, loaded on first use (after libibverbs). */
    static synchronized Librdmacm get() throws VerbsUnavailableException {
        if (instance != null) {
            return instance;
        }
        if (failure != null) {
            throw new VerbsUnavailableException(failure);
        }
        try {
            Libibverbs.get();
            SymbolLookup lib;
            try {
                lib = SymbolLookup.libraryLookup(LIBRARY, Arena.global());
            } catch (IllegalArgumentException e) {
                throw new VerbsUnavailableException(LIBRARY + " cannot be loaded (" + e.getMessage()
                        + "): install rdma-core's librdmacm (Debian and Ubuntu: apt install librdmacm1)");
            }
            instance = new Librdmacm(lib);
            return instance;
        } catch (VerbsUnavailableException e) {
            failure = e.getMessage();
            throw e;
        }
    }

    private static MethodHandle fn(SymbolLookup lib, String name, FunctionDescriptor d) throws VerbsUnavailableException {
        MemorySegment addr = lib.find(name).orElseThrow(() -> new VerbsUnavailableException(LIBRARY + " has no " + name
                + ": it is not rdma-core's librdmacm"));
        return LINKER.downcallHandle(addr, d, Linker.Option.captureCallState("errno"));
    }
}
