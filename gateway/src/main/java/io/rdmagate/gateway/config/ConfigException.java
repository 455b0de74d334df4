package io.rdmagate.gateway.config;

/** A configuration error, located: its message reads {@code FILE:LINE: reason}. */
public final class ConfigException extends Exception {
    private final String file;
    private final int line;
    private final String reason;

    public ConfigException(String file, int line, String reason) {
        super(file + ":" + line + ": " + reason);
        this.file = file;
        this.line = line;
        this.reason = reason;
    }

    public String file() {
        return file;
    }

    /** 1-based. */
    public int line() {
        return line;
    }

    public String reason() {
        return reason;
    }
}
