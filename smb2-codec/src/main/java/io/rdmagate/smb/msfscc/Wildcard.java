package io.rdmagate.smb.msfscc;

/**
 * Name matching for QUERY_DIRECTORY patterns (MS-FSA 2.1.4.4, IsInExpression): '*' and '?', and the
 * DOS wildcards '<' (DOS_STAR), '>' (DOS_QM) and '"' (DOS_DOT). Case-insensitive, as Windows
 * servers compare.
 */
public final class Wildcard {
    private Wildcard() {
    }

    public static boolean isWild(String pattern) {
        for (int i = 0; i < pattern.length(); i++) {
            char c = pattern.charAt(i);
            if (c == '*' || c == '?' || c == '<' || c == '>' || c == '"') {
                return true;
            }
        }
        return false;
    }

    public static boolean matches(String pattern, String name) {
        if (pattern.isEmpty() || pattern.equals("*")) {
            return true;
        }
        return match(pattern.toUpperCase(java.util.Locale.ROOT), 0, name.toUpperCase(java.util.Locale.ROOT), 0, 0);
    }

    private static boolean match(String p, int pi, String n, int ni, int depth) {
        if (depth > 64) {
            return false;
        }
        while (pi < p.length()) {
            char c = p.charAt(pi);
            switch (c) {
                case '*' -> {
                    for (int k = ni; k <= n.length(); k++) {
                        if (match(p, pi + 1, n, k, depth + 1)) {
                            return true;
                        }
                    }
                    return false;
                }
                case '<' -> {
                    // DOS_STAR: any characters up to the last '.' of the name
                    int lastDot = n.lastIndexOf('.');
                    for (int k = ni; k <= n.length(); k++) {
                        if (lastDot >= 0 && k > lastDot) {
                            break;
                        }
                        if (match(p, pi + 1, n, k, depth + 1)) {
                            return true;
                        }
                    }
                    return false;
                }
                case '>' -> {
                    // DOS_QM: any one character, or nothing at a '.' or the end
                    if (ni < n.length() && n.charAt(ni) != '.') {
                        if (match(p, pi + 1, n, ni + 1, depth + 1)) {
                            return true;
                        }
                    }
                    pi++;
                }
                case '"' -> {
                    // DOS_DOT: a '.' or the end of the name
                    if (ni < n.length() && n.charAt(ni) == '.') {
                        ni++;
                    } else if (ni != n.length()) {
                        return false;
                    }
                    pi++;
                }
                case '?' -> {
                    if (ni >= n.length()) {
                        return false;
                    }
                    pi++;
                    ni++;
                }
                default -> {
                    if (ni >= n.length() || n.charAt(ni) != c) {
                        return false;
                    }
                    pi++;
                    ni++;
                }
            }
        }
        return ni == n.length();
    }
}
