package io.rdmagate.smb;

import java.util.HexFormat;

public final class Hex {
    private Hex() {
    }

    public static byte[] b(String s) {
        return HexFormat.of().parseHex(s.replace(" ", "").replace("\n", "").toLowerCase());
    }

    public static String s(byte[] b) {
        return HexFormat.of().formatHex(b);
    }
}
