package io.rdmagate.rdma.softiwarp;

/**
 * Wire constants of DDP (RFC 5041) and RDMAP (RFC 5040) as MPA carries them (RFC 5044): the
 * 16-bit control word after the MPA length, the queues of untagged messages, and the Terminate
 * layers, types and codes (RFC 5040 §7).
 *
 * <pre>
 * FPDU:  ULPDU_Length(16) | DDP/RDMAP control(16) | header rest | payload | pad to 4 | CRC(32)
 * control: T(1) L(1) rsvd(4) DV(2) | RV(2) rsvd(2) opcode(4)
 * tagged header rest:   STag(32) TO(64)                          -> DDP header 14 bytes
 * untagged header rest: rsvd/inval STag(32) QN(32) MSN(32) MO(32) -> DDP header 18 bytes
 * </pre>
 */
final class Rdmap {
    static final int TAGGED = 0x8000;
    static final int LAST = 0x4000;
    static final int DDP_VERSION_MASK = 0x0300;
    static final int RDMAP_VERSION_MASK = 0x00c0;
    static final int OPCODE_MASK = 0x000f;
    static final int DDP_V1 = 0x0100;
    static final int RDMAP_V1 = 0x0040;

    static final int OP_WRITE = 0x0;
    static final int OP_READ_REQUEST = 0x1;
    static final int OP_READ_RESPONSE = 0x2;
    static final int OP_SEND = 0x3;
    static final int OP_SEND_INVALIDATE = 0x4;
    static final int OP_SEND_SE = 0x5;
    static final int OP_SEND_SE_INVALIDATE = 0x6;
    static final int OP_TERMINATE = 0x7;

    static final int QN_SEND = 0;
    static final int QN_READ_REQUEST = 1;
    static final int QN_TERMINATE = 2;

    static final int TAGGED_HEADER = 14;
    static final int UNTAGGED_HEADER = 18;
    /** Sink STag, sink TO, size, source STag, source TO (RFC 5040 §4.4). */
    static final int READ_REQUEST_BODY = 28;
    /** Layer/type/code word of a Terminate (RFC 5040 §4.8). */
    static final int TERMINATE_BODY = 4;

    // Terminate layers
    static final int LAYER_RDMAP = 0;
    static final int LAYER_DDP = 1;
    static final int LAYER_LLP = 2;
    // RDMAP error types and codes
    static final int RDMAP_CATASTROPHIC = 0;
    static final int RDMAP_REMOTE_PROTECTION = 1;
    static final int RDMAP_REMOTE_OPERATION = 2;
    static final int RDMAP_INVALID_STAG = 0x00;
    static final int RDMAP_BASE_BOUNDS = 0x01;
    static final int RDMAP_ACCESS_RIGHTS = 0x02;
    static final int RDMAP_STAG_NOT_ASSOCIATED = 0x03;
    static final int RDMAP_VERSION = 0x05;
    static final int RDMAP_OPCODE = 0x06;
    static final int RDMAP_CATASTROPHIC_STREAM = 0x07;
    static final int RDMAP_CANNOT_INVALIDATE = 0x09;
    // DDP error types and codes
    static final int DDP_CATASTROPHIC = 0;
    static final int DDP_TAGGED = 1;
    static final int DDP_UNTAGGED = 2;
    static final int DDP_T_INVALID_STAG = 0x00;
    static final int DDP_T_BASE_BOUNDS = 0x01;
    static final int DDP_T_VERSION = 0x04;
    static final int DDP_UT_INVALID_QN = 0x01;
    static final int DDP_UT_NO_BUFFER = 0x02;
    static final int DDP_UT_MSN_RANGE = 0x03;
    static final int DDP_UT_INVALID_MO = 0x04;
    static final int DDP_UT_TOO_LONG = 0x05;
    static final int DDP_UT_VERSION = 0x06;
    // LLP (MPA) codes
    static final int LLP_CRC = 0x02;
    static final int LLP_FPDU_START = 0x03;
    static final int LLP_NO_MATCHING_RTR = 0x07;

    private Rdmap() {
    }

    static boolean tagged(int opcode) {
        return opcode == OP_WRITE || opcode == OP_READ_RESPONSE;
    }

    static int sendOpcode(io.rdmagate.rdma.Opcode op) {
        return switch (op) {
            case SEND -> OP_SEND;
            case SEND_WITH_INVALIDATE -> OP_SEND_INVALIDATE;
            case SEND_WITH_SOLICITED_EVENT -> OP_SEND_SE;
            case SEND_WITH_SOLICITED_EVENT_AND_INVALIDATE -> OP_SEND_SE_INVALIDATE;
            case RDMA_WRITE -> OP_WRITE;
            case RDMA_READ -> OP_READ_REQUEST;
        };
    }

    /** A Terminate's cause: layer, error type, code, and words for logs and disconnect reasons. */
    record Cause(int layer, int etype, int ecode, String text) {
        int word() {
            return (layer & 0xf) << 28 | (etype & 0xf) << 24 | (ecode & 0xff) << 16;
        }

        static Cause of(int word) {
            int layer = word >>> 28;
            int etype = (word >>> 24) & 0xf;
            int ecode = (word >>> 16) & 0xff;
            String l = switch (layer) {
                case LAYER_RDMAP -> "RDMAP";
                case LAYER_DDP -> "DDP";
                case LAYER_LLP -> "MPA";
                default -> "layer " + layer;
            };
            return new Cause(layer, etype, ecode, l + " etype " + etype + " code 0x" + Integer.toHexString(ecode));
        }

        @Override
        public String toString() {
            return text + " (" + Integer.toHexString(word()) + ")";
        }
    }

    static Cause rdmap(int etype, int ecode, String text) {
        return new Cause(LAYER_RDMAP, etype, ecode, "RDMAP " + text);
    }

    static Cause ddp(int etype, int ecode, String text) {
        return new Cause(LAYER_DDP, etype, ecode, "DDP " + text);
    }

    static Cause llp(int ecode, String text) {
        return new Cause(LAYER_LLP, 0, ecode, "MPA " + text);
    }
}
