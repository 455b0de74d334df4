package io.rdmagate.smb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rdmagate.smb.mserref.NtStatus;
import io.rdmagate.smb.msdtyp.AccessCheck;
import io.rdmagate.smb.msdtyp.AccessMask;
import io.rdmagate.smb.msdtyp.Ace;
import io.rdmagate.smb.msdtyp.Acl;
import io.rdmagate.smb.msdtyp.Inheritance;
import io.rdmagate.smb.msdtyp.SecurityDescriptor;
import io.rdmagate.smb.msdtyp.Sid;
import io.rdmagate.smb.mssmb2.Smb2DecodeException;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The security descriptors a client sends (SET_INFO of security information, the SecD create
 * context; MS-DTYP 2.4.6 self-relative, with its SIDs 2.4.2.2, ACLs 2.4.5 and ACEs 2.4.4), driven
 * by a fixed-seed, structure-aware mutation campaign from descriptors as Windows and smbtorture
 * send them: offsets, sizes, counts and revisions set to edges, bytes flipped, cuts.
 *
 * <p>Whatever the bytes, the parser returns a descriptor or refuses with the status the server
 * answers (INVALID_SECURITY_DESCR, INVALID_ACL, INVALID_SID), never another exception. And what it
 * takes, the server can keep: every descriptor it returns, applied the way SET_INFO applies it
 * (any SecurityInformation) or inherited by a new file and directory the way CREATE inherits it,
 * encodes to bytes that read back as the same descriptor, and an access check against it
 * completes. A client therefore cannot make the gateway store a descriptor it can no longer read.
 * {@code -Drdmagate.fuzz.rounds=N} sets the number of inputs for a long run.
 */
class SecurityDescriptorFuzzTest {
    private static final int ROUNDS = Integer.getInteger("rdmagate.fuzz.rounds", 20_000);
    private static final Set<Integer> REFUSALS = Set.of(NtStatus.INVALID_SECURITY_DESCR, NtStatus.INVALID_ACL,
            NtStatus.INVALID_SID, NtStatus.INVALID_OWNER, NtStatus.INVALID_PRIMARY_GROUP);

    private final Map<String, Integer> outcomes = new TreeMap<>();

    private void count(String what) {
        outcomes.merge(what, 1, Integer::sum);
    }

    /** Seeds: what Windows Explorer, icacls and smbtorture's smb2.acls send. */
    static List<byte[]> seeds() {
        Sid alice = new Sid(5, new int[] {21, 1004336348, 1177238915, 682003330, 1001});
        Sid users = new Sid(5, new int[] {32, 545});
        Sid admins = new Sid(5, new int[] {32, 544});
        Acl explorer = Acl.of(List.of(
                new Ace(Ace.ACCESS_DENIED, 0, AccessMask.DELETE, users),
                new Ace(Ace.ACCESS_ALLOWED, Ace.OBJECT_INHERIT | Ace.CONTAINER_INHERIT, AccessMask.FILE_ALL_ACCESS, alice),
                new Ace(Ace.ACCESS_ALLOWED, Ace.INHERITED | Ace.OBJECT_INHERIT, 0x1200a9, users),
                new Ace(Ace.ACCESS_ALLOWED, Ace.CONTAINER_INHERIT | Ace.INHERIT_ONLY, 0x10000000, Sid.CREATOR_OWNER),
                new Ace(Ace.ACCESS_ALLOWED, 0, AccessMask.FILE_ALL_ACCESS, Sid.LOCAL_SYSTEM)));
        Acl audit = Acl.of(List.of(new Ace(Ace.SYSTEM_AUDIT, Ace.FAILED_ACCESS, AccessMask.DELETE, Sid.EVERYONE)));
        return List.of(
                new SecurityDescriptor(SecurityDescriptor.SE_DACL_PRESENT | SecurityDescriptor.SE_DACL_AUTO_INHERITED,
                        alice, users, null, explorer).encode(),
                new SecurityDescriptor(SecurityDescriptor.SE_DACL_PRESENT | SecurityDescriptor.SE_SACL_PRESENT
                        | SecurityDescriptor.SE_DACL_PROTECTED, admins, users, audit, explorer).encode(),
                new SecurityDescriptor(0, alice, null, null, null).encode(), // an owner change
                new SecurityDescriptor(SecurityDescriptor.SE_DACL_PRESENT, null, null, null, null).encode(), // NULL DACL
                new SecurityDescriptor(SecurityDescriptor.SE_DACL_PRESENT, null, null, null, Acl.of(List.of())).encode(),
                SecurityDescriptor.fromMode(Sid.unixUser(1000), Sid.unixGroup(1000), 0750).encode());
    }

    @Test
    void mutatedDescriptorsAreReadOrRefusedAndWhatIsTakenIsKeptReadable() {
        List<byte[]> seeds = seeds();
        SecurityDescriptor stored = SecurityDescriptor.fromMode(Sid.unixUser(1000), Sid.unixGroup(100), 0644);
        Sid bob = Sid.unixUser(1001);
        AccessCheck.Token token = new AccessCheck.Token(bob, Set.of(bob, Sid.unixGroup(100), Sid.EVERYONE,
                Sid.AUTHENTICATED_USERS));
        Random rnd = new Random(0x5ec0de5dL);
        for (int i = 0; i < ROUNDS; i++) {
            byte[] b = SecurityTokenFuzzTest.Mutator.fields(rnd, seeds.get(rnd.nextInt(seeds.size())),
                    rnd.nextBoolean() ? 4 : 2);
            SecurityDescriptor sd;
            try {
                sd = SecurityDescriptor.read(b);
            } catch (Smb2DecodeException e) {
                assertTrue(REFUSALS.contains(e.status()), "refused with " + Integer.toHexString(e.status()));
                count("refused " + Integer.toHexString(e.status()));
                continue;
            }
            // owner, group and the ACLs may share bytes (MS-DTYP sets no rule against it): each is at most the input
            assertTrue(sd.length() <= 4 * b.length, "a descriptor more than four times its input");
            keptReadable(sd);
            int info = rnd.nextInt(16);
            try {
                SecurityDescriptor set = stored.with(sd, info);
                keptReadable(set);
                AccessCheck.granted(set, token);
                count("set");
            } catch (Smb2DecodeException e) {
                assertTrue(REFUSALS.contains(e.status()), "set refused with " + Integer.toHexString(e.status()));
                count("set refused " + Integer.toHexString(e.status()));
            }
            for (boolean container : new boolean[] {false, true}) {
                SecurityDescriptor child = Inheritance.create(sd, null, container, bob, Sid.unixGroup(100));
                if (child != null) {
                    keptReadable(child);
                    AccessCheck.granted(child, token);
                }
                SecurityDescriptor supplied = Inheritance.create(stored, sd, container, bob, Sid.unixGroup(100));
                if (supplied != null) {
                    keptReadable(supplied);
                }
            }
            count("read");
        }
        assertTrue(outcomes.getOrDefault("read", 0) > ROUNDS / 10, "mutations still reach the parser's end: " + outcomes);
        assertTrue(outcomes.keySet().stream().anyMatch(k -> k.startsWith("refused")), outcomes.toString());
        System.out.println("security descriptor campaign: " + outcomes);
    }

    /** The descriptor encodes to bytes that read back as itself: what the server stores, it can read. */
    private static void keptReadable(SecurityDescriptor sd) {
        byte[] encoded = sd.encode();
        SecurityDescriptor back;
        try {
            back = SecurityDescriptor.read(encoded);
        } catch (Smb2DecodeException e) {
            throw new AssertionError("a descriptor the server would keep does not read back: " + e.getMessage(), e);
        }
        assertEquals(sd.owner(), back.owner());
        assertEquals(sd.group(), back.group());
        assertEquals(sd.dacl(), back.dacl());
        assertEquals(sd.daclPresent(), back.daclPresent());
        assertEquals((sd.control() & SecurityDescriptor.SE_SACL_PRESENT) != 0 ? sd.sacl() : null, back.sacl());
    }
}
