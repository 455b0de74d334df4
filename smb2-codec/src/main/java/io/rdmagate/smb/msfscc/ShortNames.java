package io.rdmagate.smb.msfscc;

import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.zip.CRC32;

/**
 * 8.3 short names (MS-FSCC 2.1.5.2.1) for FileAlternateNameInformation and the ShortName of the
 * Both directory classes. The gateway keeps none on disk, so each is derived from the long name:
 * a name that is a valid 8.3 name already is its own short name in upper case; any other gets
 * one made as Samba's {@code hash2} mangling makes them: the first five characters of the name
 * that an 8.3 name may hold, upper case, {@code ~}, two characters of a hash of the whole long
 * name, and the first three such characters of its extension ({@code Program Files} is
 * {@code PROGR~RE}, {@code report.final.docx} is {@code REPOR~MH.DOC}). The same long name
 * always gets the same short name; two long names of one directory may, rarely, get the same one
 * (the hash has 1,296 values), as with Samba.
 */
public final class ShortNames {
    /** Characters an 8.3 name may hold besides letters and digits (MS-FSCC 2.1.5.2.1). */
    private static final String SPECIAL = "$%'-_@~`!(){}^#&";

    private ShortNames() {
    }

    /** Whether {@code name} is a valid 8.3 name as it is, upper case included. */
    public static boolean isShort(String name) {
        return isShortIgnoringCase(name) && name.equals(name.toUpperCase(Locale.ROOT));
    }

    /**
     * Whether {@code name} can be an 8.3 name this class made for a longer one: a valid 8.3 name in
     * any case with a {@code ~} in it. A CREATE of a name that does not exist but may be one looks
     * for the entry it was made for.
     */
    public static boolean mayBeMangled(String name) {
        return name.indexOf('~') > 0 && isShortIgnoringCase(name);
    }

    private static boolean isShortIgnoringCase(String name) {
        int dot = name.indexOf('.');
        String base = dot < 0 ? name : name.substring(0, dot);
        String ext = dot < 0 ? "" : name.substring(dot + 1);
        if (base.isEmpty() || base.length() > 8 || ext.length() > 3 || (dot >= 0 && ext.isEmpty())) {
            return false;
        }
        return allowed(base) && allowed(ext);
    }

    private static boolean allowed(String s) {
        for (int i = 0; i < s.length(); i++) {
            if (!allowed(s.charAt(i))) {
                return false;
            }
        }
        return true;
    }

    private static boolean allowed(char c) {
        return c < 0x80 && (Character.isLetterOrDigit(c) || SPECIAL.indexOf(c) >= 0);
    }

    /** The short name of {@code name} (not "." or ".."). */
    public static String of(String name) {
        if (isShortIgnoringCase(name)) {
            return name.toUpperCase(Locale.ROOT);
        }
        int dot = name.lastIndexOf('.');
        boolean hasExt = dot > 0 && dot < name.length() - 1;
        String base = keep(hasExt ? name.substring(0, dot) : name, 5);
        String ext = hasExt ? keep(name.substring(dot + 1), 3) : "";
        CRC32 crc = new CRC32();
        crc.update(name.getBytes(StandardCharsets.UTF_8));
        String hash = Long.toString(crc.getValue() % (36 * 36) + 36 * 36, 36).substring(1).toUpperCase(Locale.ROOT);
        return (base.isEmpty() ? "_" : base) + "~" + hash + (ext.isEmpty() ? "" : "." + ext);
    }

    /** The first {@code max} characters of {@code s} an 8.3 name may hold, upper case. */
    private static String keep(String s, int max) {
        StringBuilder out = new StringBuilder(max);
        for (int i = 0; i < s.length() && out.length() < max; i++) {
            char c = Character.toUpperCase(s.charAt(i));
            if (allowed(c)) {
                out.append(c);
            }
        }
        return out.toString();
    }
}
