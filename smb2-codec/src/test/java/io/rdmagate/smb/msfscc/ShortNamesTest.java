package io.rdmagate.smb.msfscc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * 8.3 names as clients see them (FileAlternateNameInformation, `dir /x`): a valid 8.3 name in upper
 * case is its own; others get a mangled name that a client may have remembered, so it must not
 * change from one release to the next: the values below are pinned.
 */
class ShortNamesTest {
    @Test
    void shortNamesAreThemselvesAndLongOnesAreMangledTheSameEveryTime() {
        assertTrue(ShortNames.isShort("HELLO.TXT"));
        assertTrue(ShortNames.isShort("A$B_1~2.{}"));
        assertFalse(ShortNames.isShort("hello.txt"), "lower case is not 8.3");
        assertFalse(ShortNames.isShort("ABCDEFGHI.TXT"), "a base of 9");
        assertFalse(ShortNames.isShort("A.TEXT"), "an extension of 4");
        assertFalse(ShortNames.isShort("A.B.C"), "two dots");
        assertFalse(ShortNames.isShort("A B.TXT"), "a space");
        assertEquals("HELLO.TXT", ShortNames.of("hello.txt"), "an 8.3 name in another case");
        assertEquals("PROGR~RE", ShortNames.of("Program Files"));
        assertEquals("REPOR~MH.DOC", ShortNames.of("report.final.docx"), "the last extension, cut to 3");
        assertEquals("TESTS~7S.DAT", ShortNames.of("testsmb2_file.dat"));
        assertEquals("BASHR~7Z", ShortNames.of(".bashrc"), "a leading dot is no extension");
        assertEquals("AB~3Z.C", ShortNames.of("a+b.c"), "characters an 8.3 name cannot hold are left out");
        assertEquals("_~OJ.TXT", ShortNames.of("\u65e5\u672c\u8a9e.txt"), "a base with none of them");
        for (String n : new String[] {"Program Files", "x".repeat(255), "a.b.c.d", " .txt"}) {
            String s = ShortNames.of(n);
            assertTrue(ShortNames.isShort(s), n + " -> " + s + " is 8.3 itself");
        }
    }
}
