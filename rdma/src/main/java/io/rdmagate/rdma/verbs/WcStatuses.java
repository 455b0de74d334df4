package io.rdmagate.rdma.verbs;

import io.rdmagate.rdma.WcStatus;

/**
 * {@code enum ibv_wc_status} (man ibv_poll_cq) to the SPI's {@link WcStatus}. Each SPI status names a
 * class of failure; the verbs statuses map onto them as their descriptions in the man page say:
 * receiver-not-ready retries exhausted is the peer not taking a Send (REMOTE_OPERATION_ERROR, as
 * iWARP's DDP "no buffer" is for the software provider); transport retries exhausted, bad responses
 * and the like end the connection (FATAL_ERROR).
 */
final class WcStatuses {
    private static final String[] NAMES = {"SUCCESS", "LOC_LEN_ERR", "LOC_QP_OP_ERR", "LOC_EEC_OP_ERR", "LOC_PROT_ERR",
        "WR_FLUSH_ERR", "MW_BIND_ERR", "BAD_RESP_ERR", "LOC_ACCESS_ERR", "REM_INV_REQ_ERR", "REM_ACCESS_ERR",
        "REM_OP_ERR", "RETRY_EXC_ERR", "RNR_RETRY_EXC_ERR", "LOC_RDD_VIOL_ERR", "REM_INV_RD_REQ_ERR", "REM_ABORT_ERR",
        "INV_EECN_ERR", "INV_EEC_STATE_ERR", "FATAL_ERR", "RESP_TIMEOUT_ERR", "GENERAL_ERR"};

    private WcStatuses() {
    }

    static WcStatus of(int ibvStatus) {
        return switch (ibvStatus) {
            case IbvAbi.WC_SUCCESS -> WcStatus.SUCCESS;
            case IbvAbi.WC_LOC_LEN_ERR -> WcStatus.LOCAL_LENGTH_ERROR;
            case IbvAbi.WC_LOC_QP_OP_ERR -> WcStatus.LOCAL_QP_OPERATION_ERROR;
            case IbvAbi.WC_LOC_PROT_ERR, IbvAbi.WC_LOC_ACCESS_ERR, IbvAbi.WC_MW_BIND_ERR -> WcStatus.LOCAL_PROTECTION_ERROR;
            case IbvAbi.WC_WR_FLUSH_ERR -> WcStatus.WR_FLUSH_ERROR;
            case IbvAbi.WC_REM_ACCESS_ERR -> WcStatus.REMOTE_ACCESS_ERROR;
            case IbvAbi.WC_REM_OP_ERR, IbvAbi.WC_RNR_RETRY_EXC_ERR -> WcStatus.REMOTE_OPERATION_ERROR;
            case IbvAbi.WC_REM_INV_REQ_ERR, IbvAbi.WC_REM_INV_RD_REQ_ERR -> WcStatus.REMOTE_INVALID_REQUEST_ERROR;
            default -> WcStatus.FATAL_ERROR;
        };
    }

    /** IBV_WC_ without the prefix, for logs. */
    static String name(int ibvStatus) {
        return ibvStatus >= 0 && ibvStatus < NAMES.length ? NAMES[ibvStatus] : "status " + ibvStatus;
    }
}
