package io.rdmagate.gateway;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/** The program's version, from the build (rdmagate-version.properties, filtered by Maven). */
public final class Version {
    private static final String VERSION = load();

    private Version() {
    }

    public static String get() {
        return VERSION;
    }

    private static String load() {
        try (InputStream in = Version.class.getClassLoader().getResourceAsStream("rdmagate-version.properties")) {
            Properties p = new Properties();
            if (in != null) {
                p.load(in);
            }
            return p.getProperty("version", "unknown");
        } catch (IOException e) {
            return "unknown";
        }
    }
}
