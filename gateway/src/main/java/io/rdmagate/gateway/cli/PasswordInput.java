package io.rdmagate.gateway.cli;

import io.rdmagate.gateway.Main;
import java.io.ByteArrayOutputStream;
import java.io.Console;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/** Reads a password: one line of standard input, or twice from the terminal without echo. */
final class PasswordInput {
    private PasswordInput() {
    }

    /** The first line of {@code in}, without its line end. */
    static char[] fromStream(InputStream in) throws IOException, Main.CommandFailure {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        int b;
        while ((b = in.read()) != -1 && b != '\n') {
            buf.write(b);
        }
        byte[] bytes = buf.toByteArray();
        int n = bytes.length;
        if (n > 0 && bytes[n - 1] == '\r') {
            n--;
        }
        CharBuffer chars = StandardCharsets.UTF_8.decode(ByteBuffer.wrap(bytes, 0, n));
        Arrays.fill(bytes, (byte) 0);
        char[] out = new char[chars.remaining()];
        chars.get(out);
        if (chars.hasArray()) {
            Arrays.fill(chars.array(), '\0');
        }
        return nonEmpty(out);
    }

    static char[] fromTerminal(String user) throws Main.CommandFailure {
        Console c = System.console();
        if (c == null || !c.isTerminal()) {
            throw new Main.CommandFailure("no terminal to ask for the password; pipe it in with --password-stdin",
                    Main.EXIT_CONFIG);
        }
        char[] first = c.readPassword("Password for %s: ", user);
        char[] second = c.readPassword("Repeat the password: ");
        if (first == null || second == null || !Arrays.equals(first, second)) {
            clear(first);
            clear(second);
            throw new Main.CommandFailure("the passwords differ; nothing changed", Main.EXIT_FAILURE);
        }
        clear(second);
        return nonEmpty(first);
    }

    static void clear(char[] p) {
        if (p != null) {
            Arrays.fill(p, '\0');
        }
    }

    private static char[] nonEmpty(char[] p) throws Main.CommandFailure {
        if (p.length == 0) {
            throw new Main.CommandFailure("empty password refused; nothing changed", Main.EXIT_FAILURE);
        }
        return p;
    }
}
