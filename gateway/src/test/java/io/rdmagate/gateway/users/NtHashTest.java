package io.rdmagate.gateway.users;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class NtHashTest {
    @Test
    void knownVectors() {
        assertEquals("8846F7EAEE8FB117AD06BDD830B7586C", NtHash.of("password".toCharArray()));
        assertEquals("31D6CFE0D16AE931B73C59D7E0C089C0", NtHash.of(new char[0]), "MD4 of nothing");
    }
}
