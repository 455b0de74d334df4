package io.rdmagate.rdma.softiwarp;

/** A received segment broke a rule: the connection ends with a Terminate carrying this cause. */
final class TerminateException extends Exception {
    private static final long serialVersionUID = 1L;
    private final transient Rdmap.Cause cause;

    TerminateException(Rdmap.Cause cause) {
        super(cause.toString(), null, false, false);
        this.cause = cause;
    }

    Rdmap.Cause terminateCause() {
        return cause;
    }
}
