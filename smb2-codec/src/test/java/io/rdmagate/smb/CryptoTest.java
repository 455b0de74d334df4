package io.rdmagate.smb;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rdmagate.smb.mssmb2.NegotiateContext;
import io.rdmagate.smb.mssmb2.Smb2Command;
import io.rdmagate.smb.mssmb2.Smb2Header;
import io.rdmagate.smb.mssmb2.TransformHeader;
import io.rdmagate.smb.mssmb2.crypto.PreauthIntegrity;
import io.rdmagate.smb.mssmb2.crypto.Smb2Cipher;
import io.rdmagate.smb.mssmb2.crypto.Smb2Kdf;
import io.rdmagate.smb.mssmb2.crypto.Smb2Signer;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.security.SecureRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/**
 * Key derivation against the examples Microsoft published with MS-SMB2 ("SMB 2 and SMB 3 security
 * in Windows 10: the anatomy of signing and cryptographic keys", appendix), AES-CMAC against RFC
 * 4493 §4, and signing/encryption round trips.
 */
class CryptoTest {

    @Test
    void smb30Keys() {
        Smb2Kdf.Keys k = Smb2Kdf.serverKeys(Hex.b("7CD451825D0450D235424E44BA6E78CC"), false, null, 128);
        assertEquals("0b7e9c5cac36c0f6ea9ab275298cedce", Hex.s(k.signing()));
        // The published EncryptionKey is the client's ("ServerIn "): the server decrypts with it.
        assertEquals("fad27796665b313ebb578f388632b4f7", Hex.s(k.decryption()));
        assertEquals("b0f0427f7ceb416d1d9dcc0cd4f99447", Hex.s(k.encryption()));
        assertEquals("bb23a4575aa26c721af525af15a87b4f", Hex.s(k.application()));
    }

    @Test
    void smb311Keys() {
        byte[] preauth = Hex.b("0DD13628CC3ED218EF9DF9772D436D0887AB9814BFAE63A80AA845F36909DB79"
                + "28622DDDAD522D9751640A459762C5A9D6BB084CBB3CE6BDADEF5D5BCE3C6C01");
        Smb2Kdf.Keys k = Smb2Kdf.serverKeys(Hex.b("270E1BA896585EEB7AF3472D3B4C75A7"), true, preauth, 128);
        assertEquals("73fe7a9a77bef0bde49c650d8ccb5f76", Hex.s(k.signing()));
        assertEquals("629bcbc54422a0f572b97f45989b6073", Hex.s(k.decryption()));
        assertEquals("e2af0dcefac68da71a0dfbd0d1350d74", Hex.s(k.encryption()));
        assertEquals("6d7ad7954e9ec61e907b4d473dc178ff", Hex.s(k.application()));
        assertEquals(32, Smb2Kdf.serverKeys(new byte[16], true, preauth, 256).encryption().length);
    }

    @Test
    void aesCmacRfc4493() {
        Smb2Signer s = Smb2Signer.aesCmac(Hex.b("2b7e151628aed2a6abf7158809cf4f3c"));
        ByteBuffer m16 = ByteBuffer.wrap(Hex.b("6bc1bee22e409f96e93d7e117393172a"));
        assertEquals("070a16b46b4d4144f79bdd9dd04a287c", Hex.s(s.signature(m16, null)));
        ByteBuffer m64 = ByteBuffer.wrap(Hex.b("6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51"
                + "30c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c3710"));
        assertEquals("51f0bebf7e3b9d92fc49741779363cfe", Hex.s(s.signature(m64, null)));
        // a payload given separately signs the same as one contiguous message
        assertEquals("51f0bebf7e3b9d92fc49741779363cfe",
                Hex.s(s.signature(m64.slice(0, 40), m64.slice(40, 24))));
        assertEquals("bb1d6929e95937287fa37d129b756746", Hex.s(s.signature(ByteBuffer.allocate(0), null)), "empty");
        assertEquals("dfa66747de9ae63030ca32611497c827", Hex.s(s.signature(m64.slice(0, 40), null)), "40 bytes");
        assertEquals("070a16b46b4d4144f79bdd9dd04a287c", Hex.s(s.signature(m16, null)), "ready for the next message");
    }

    /** Messages of every size class, split anywhere, heap or direct, sign as BouncyCastle's CMAC does. */
    @Test
    void aesCmacMatchesAReferenceImplementationOnLargeSplitMessages() {
        java.util.SplittableRandom r = new java.util.SplittableRandom(4493);
        byte[] key = new byte[16];
        r.nextBytes(key);
        Smb2Signer s = Smb2Signer.aesCmac(key);
        org.bouncycastle.crypto.macs.CMac ref = new org.bouncycastle.crypto.macs.CMac(
                org.bouncycastle.crypto.engines.AESEngine.newInstance());
        ref.init(new org.bouncycastle.crypto.params.KeyParameter(key));
        for (int length : new int[] {1, 15, 16, 17, 31, 32, 33, 4096, 65535, 65536, 65537, 65553, 1 << 20, (1 << 20) + 77}) {
            byte[] msg = new byte[length];
            r.nextBytes(msg);
            ref.update(msg, 0, length);
            byte[] want = new byte[16];
            ref.doFinal(want, 0);
            int split = r.nextInt(length + 1);
            ByteBuffer payload = ByteBuffer.allocateDirect(length - split).put(msg, split, length - split).flip();
            assertEquals(Hex.s(want), Hex.s(s.signature(ByteBuffer.wrap(msg, 0, split).slice(), payload)),
                    length + " bytes split at " + split);
            assertEquals(Hex.s(want), Hex.s(s.signature(ByteBuffer.wrap(msg), null)), length + " bytes whole");
        }
    }

    static ByteBuffer message(int command, int bodyBytes) {
        ByteBuffer m = ByteBuffer.allocate(64 + bodyBytes).order(ByteOrder.LITTLE_ENDIAN);
        Smb2Header.writeResponse(m, command, 0, 1, 1, 0, 42, 0, 7, 0x1122334455667788L);
        for (int i = 64; i < m.limit(); i++) {
            m.put(i, (byte) i);
        }
        return m;
    }

    @ParameterizedTest
    @ValueSource(ints = {NegotiateContext.SIGNING_HMAC_SHA256, NegotiateContext.SIGNING_AES_CMAC, NegotiateContext.SIGNING_AES_GMAC})
    void signedMessagesVerifyAndTamperingIsCaught(int algorithm) {
        byte[] key = Hex.b("000102030405060708090a0b0c0d0e0f");
        Smb2Signer s = switch (algorithm) {
            case NegotiateContext.SIGNING_HMAC_SHA256 -> Smb2Signer.hmacSha256(key);
            case NegotiateContext.SIGNING_AES_CMAC -> Smb2Signer.aesCmac(key);
            default -> Smb2Signer.aesGmac(key);
        };
        ByteBuffer m = message(Smb2Command.READ, 100);
        s.sign(m, null);
        assertTrue(Smb2Header.isSigned(m));
        assertTrue(s.verify(m));
        m.put(100, (byte) (m.get(100) ^ 1));
        assertFalse(s.verify(m));
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 4})
    void encryptionRoundTripsAndRefusesTampering(int cipherId) {
        byte[] key = new byte[Smb2Cipher.keyBits(cipherId) / 8];
        new SecureRandom().nextBytes(key);
        Smb2Cipher enc = new Smb2Cipher(cipherId, key, new SecureRandom());
        ByteBuffer a = message(Smb2Command.READ, 30);
        ByteBuffer b = ByteBuffer.wrap(new byte[] {1, 2, 3, 4, 5});
        ByteBuffer t = enc.encrypt(99L, a.duplicate(), b.duplicate());
        assertTrue(TransformHeader.check(t));
        assertEquals(99L, TransformHeader.sessionId(t));
        assertEquals(94 + 5, t.getInt(TransformHeader.ORIGINAL_SIZE));
        ByteBuffer p = enc.decrypt(t);
        assertEquals(99, p.limit());
        assertEquals(a.slice(0, 94), p.slice(0, 94));
        assertEquals(b, p.slice(94, 5));
        ByteBuffer bad = ByteBuffer.allocate(t.limit()).order(ByteOrder.LITTLE_ENDIAN).put(t.duplicate()).flip();
        bad.put(60, (byte) (bad.get(60) ^ 0x40));
        assertNull(enc.decrypt(bad));
        ByteBuffer badAad = ByteBuffer.allocate(t.limit()).order(ByteOrder.LITTLE_ENDIAN).put(t.duplicate()).flip();
        badAad.putLong(TransformHeader.SESSION_ID, 100L);
        assertNull(enc.decrypt(badAad));
    }

    @Test
    void preauthHashChains() {
        PreauthIntegrity p = new PreauthIntegrity();
        assertArrayEquals(new byte[64], p.value());
        PreauthIntegrity q = p.copy();
        p.update(ByteBuffer.wrap(new byte[] {1, 2}));
        q.update(ByteBuffer.wrap(new byte[] {1}), ByteBuffer.wrap(new byte[] {2}));
        assertArrayEquals(p.value(), q.value());
        assertNotEquals(Hex.s(new byte[64]), Hex.s(p.value()));
    }
}
