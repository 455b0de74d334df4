package io.rdmagate.smb.msdtyp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rdmagate.smb.mserref.NtStatus;
import io.rdmagate.smb.mssmb2.Smb2DecodeException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import org.junit.jupiter.api.Test;

/** MS-DTYP 2.4.6 descriptors as clients send them, the access check of 2.5.3.2 and the inheritance of 2.5.3.4. */
class SecurityDescriptorTest {
    private static final Sid ALICE = Sid.unixUser(1000);
    private static final Sid BOB = Sid.unixUser(1001);
    private static final Sid STAFF = Sid.unixGroup(100);

    private static AccessCheck.Token token(Sid user, Sid... more) {
        java.util.Set<Sid> s = new java.util.HashSet<>(List.of(more));
        s.add(user);
        s.add(Sid.EVERYONE);
        return new AccessCheck.Token(user, s);
    }

    private static SecurityDescriptor sd(Sid owner, Ace... aces) {
        return new SecurityDescriptor(SecurityDescriptor.SE_DACL_PRESENT, owner, STAFF, null, Acl.of(List.of(aces)));
    }

    @Test
    void aDescriptorReadsBackAsWrittenWithEveryPart() throws Exception {
        SecurityDescriptor sd = new SecurityDescriptor(SecurityDescriptor.SE_DACL_PRESENT | SecurityDescriptor.SE_SACL_PRESENT
                | SecurityDescriptor.SE_DACL_PROTECTED, ALICE, STAFF,
                Acl.of(List.of(new Ace(Ace.SYSTEM_AUDIT, Ace.FAILED_ACCESS, AccessMask.DELETE, Sid.EVERYONE))),
                Acl.of(List.of(new Ace(Ace.ACCESS_DENIED, Ace.OBJECT_INHERIT, AccessMask.FILE_WRITE_DATA, BOB),
                        new Ace(Ace.ACCESS_ALLOWED, 0, AccessMask.FILE_ALL_ACCESS, ALICE))));
        byte[] bytes = sd.encode();
        assertEquals(sd.length(), bytes.length);
        SecurityDescriptor back = SecurityDescriptor.read(bytes);
        assertEquals(sd.owner(), back.owner());
        assertEquals(sd.group(), back.group());
        assertEquals(sd.dacl(), back.dacl());
        assertEquals(sd.sacl(), back.sacl());
        assertEquals(sd.control() | SecurityDescriptor.SE_SELF_RELATIVE, back.control());
        assertArrayEquals(bytes, back.encode());

        SecurityDescriptor ownerOnly = back.select(SecurityDescriptor.OWNER_SECURITY_INFORMATION);
        assertEquals(ALICE, ownerOnly.owner());
        assertNull(ownerOnly.group());
        assertNull(ownerOnly.dacl());
        assertEquals(0, ownerOnly.control() & SecurityDescriptor.SE_DACL_PRESENT, "no DACL asked for, none said present");
        assertEquals(20, back.select(0).encode().length, "nothing asked for: the header alone, as sdread expects");
    }

    @Test
    void brokenDescriptorsAreRefusedWithTheStatusWindowsGives() {
        byte[] good = sd(ALICE, new Ace(Ace.ACCESS_ALLOWED, 0, AccessMask.FILE_ALL_ACCESS, ALICE)).encode();
        ByteBuffer b = ByteBuffer.wrap(good).order(ByteOrder.LITTLE_ENDIAN);
        int dacl = b.getInt(16);

        assertStatus(NtStatus.INVALID_SECURITY_DESCR, java.util.Arrays.copyOf(good, 19));
        byte[] notSelfRelative = good.clone();
        notSelfRelative[3] = 0;
        assertStatus(NtStatus.INVALID_SECURITY_DESCR, notSelfRelative);
        byte[] ownerOutside = good.clone();
        ByteBuffer.wrap(ownerOutside).order(ByteOrder.LITTLE_ENDIAN).putInt(4, good.length + 100);
        assertStatus(NtStatus.INVALID_SECURITY_DESCR, ownerOutside);
        byte[] negativeOffset = good.clone();
        ByteBuffer.wrap(negativeOffset).order(ByteOrder.LITTLE_ENDIAN).putInt(16, -8);
        assertStatus(NtStatus.INVALID_SECURITY_DESCR, negativeOffset);
        byte[] aceTooLong = good.clone();
        ByteBuffer.wrap(aceTooLong).order(ByteOrder.LITTLE_ENDIAN).putShort(dacl + 8 + 2, (short) 0x7ff0);
        assertStatus(NtStatus.INVALID_ACL, aceTooLong);
        byte[] tooManyAces = good.clone();
        ByteBuffer.wrap(tooManyAces).order(ByteOrder.LITTLE_ENDIAN).putShort(dacl + 4, (short) 0xffff);
        assertStatus(NtStatus.INVALID_ACL, tooManyAces);
        byte[] objectAce = good.clone();
        objectAce[dacl + 8] = 5; // ACCESS_ALLOWED_OBJECT_ACE_TYPE: not kept on files
        assertStatus(NtStatus.INVALID_ACL, objectAce);
        byte[] badSid = good.clone();
        badSid[b.getInt(4) + 1] = 15; // the owner's sub-authority count runs past the descriptor
        assertStatus(NtStatus.INVALID_SID, java.util.Arrays.copyOf(badSid, b.getInt(4) + 12));
    }

    private static void assertStatus(int status, byte[] bytes) {
        Smb2DecodeException e = assertThrows(Smb2DecodeException.class, () -> SecurityDescriptor.read(bytes));
        assertEquals(NtStatus.hex(status), NtStatus.hex(e.status()), e.getMessage());
    }

    @Test
    void allowAndDenyCountInTheirOrderAndTheOwnerMayAlwaysRewriteTheDacl() {
        SecurityDescriptor sd = sd(ALICE,
                new Ace(Ace.ACCESS_DENIED, 0, AccessMask.FILE_WRITE_DATA, BOB),
                new Ace(Ace.ACCESS_ALLOWED, 0, AccessMask.FILE_GENERIC_READ | AccessMask.FILE_GENERIC_WRITE, Sid.EVERYONE),
                new Ace(Ace.ACCESS_DENIED, 0, AccessMask.FILE_READ_DATA, Sid.EVERYONE));
        int bob = AccessCheck.granted(sd, token(BOB));
        assertEquals(0, bob & AccessMask.FILE_WRITE_DATA, "denied before it was allowed");
        assertTrue((bob & AccessMask.FILE_READ_DATA) != 0, "a deny after the allow takes nothing back");
        assertEquals(0, bob & AccessMask.WRITE_DAC);
        int alice = AccessCheck.granted(sd, token(ALICE));
        assertTrue((alice & AccessMask.FILE_WRITE_DATA) != 0);
        assertEquals(AccessMask.READ_CONTROL | AccessMask.WRITE_DAC, alice & (AccessMask.READ_CONTROL | AccessMask.WRITE_DAC));

        SecurityDescriptor empty = sd(ALICE);
        assertEquals(AccessMask.READ_CONTROL | AccessMask.WRITE_DAC, AccessCheck.granted(empty, token(ALICE)));
        assertEquals(0, AccessCheck.granted(empty, token(BOB)), "an empty DACL grants nothing");
        SecurityDescriptor nullDacl = new SecurityDescriptor(SecurityDescriptor.SE_DACL_PRESENT, ALICE, STAFF, null, null);
        assertEquals(AccessMask.FILE_ALL_ACCESS, AccessCheck.granted(nullDacl, token(BOB)), "a NULL DACL grants all");

        SecurityDescriptor ownerRights = sd(ALICE, new Ace(Ace.ACCESS_ALLOWED, 0, AccessMask.FILE_READ_DATA, Sid.OWNER_RIGHTS));
        assertEquals(AccessMask.FILE_READ_DATA, AccessCheck.granted(ownerRights, token(ALICE)),
                "OWNER RIGHTS replaces the owner's implicit rights");
        SecurityDescriptor generic = sd(ALICE, new Ace(Ace.ACCESS_ALLOWED, 0, AccessMask.GENERIC_READ, BOB));
        assertEquals(AccessMask.FILE_GENERIC_READ, AccessCheck.granted(generic, token(BOB)));
        SecurityDescriptor inheritOnly = sd(ALICE,
                new Ace(Ace.ACCESS_ALLOWED, Ace.OBJECT_INHERIT | Ace.INHERIT_ONLY, AccessMask.FILE_ALL_ACCESS, BOB));
        assertEquals(0, AccessCheck.granted(inheritOnly, token(BOB)), "an inherit-only ACE is for the children");
    }

    @Test
    void aSetReplacesOnlyTheNamedPartsAndMapsGenericRights() throws Exception {
        SecurityDescriptor cur = sd(ALICE, new Ace(Ace.ACCESS_ALLOWED, 0, AccessMask.FILE_ALL_ACCESS, ALICE));
        SecurityDescriptor set = new SecurityDescriptor(SecurityDescriptor.SE_DACL_PRESENT
                | SecurityDescriptor.SE_DACL_AUTO_INHERITED, BOB, null, null,
                Acl.of(List.of(new Ace(Ace.ACCESS_ALLOWED, 0, AccessMask.GENERIC_READ, BOB),
                        new Ace(Ace.ACCESS_ALLOWED, Ace.CONTAINER_INHERIT | Ace.INHERIT_ONLY, AccessMask.GENERIC_ALL, BOB))));
        SecurityDescriptor next = cur.with(set, SecurityDescriptor.DACL_SECURITY_INFORMATION);
        assertEquals(ALICE, next.owner(), "the owner was not named");
        assertEquals(AccessMask.FILE_GENERIC_READ, next.dacl().aces().get(0).mask());
        assertEquals(AccessMask.GENERIC_ALL, next.dacl().aces().get(1).mask(), "an inherit-only ACE keeps generic rights");
        assertEquals(0, next.control() & SecurityDescriptor.SE_DACL_AUTO_INHERITED, "AUTO_INHERITED only with AUTO_INHERIT_REQ");
        SecurityDescriptor req = new SecurityDescriptor(set.control() | SecurityDescriptor.SE_DACL_AUTO_INHERIT_REQ, BOB,
                null, null, set.dacl());
        assertEquals(SecurityDescriptor.SE_DACL_AUTO_INHERITED,
                cur.with(req, SecurityDescriptor.DACL_SECURITY_INFORMATION).control() & (SecurityDescriptor.SE_DACL_AUTO_INHERITED
                        | SecurityDescriptor.SE_DACL_AUTO_INHERIT_REQ));
        assertEquals(BOB, cur.with(set, SecurityDescriptor.OWNER_SECURITY_INFORMATION).owner());
        Smb2DecodeException noGroup = assertThrows(Smb2DecodeException.class,
                () -> cur.with(set, SecurityDescriptor.GROUP_SECURITY_INFORMATION));
        assertEquals(NtStatus.INVALID_PRIMARY_GROUP, noGroup.status());
        SecurityDescriptor absent = new SecurityDescriptor(0, null, null, null, null);
        assertTrue(cur.with(absent, SecurityDescriptor.DACL_SECURITY_INFORMATION).nullDacl(),
                "a DACL set without SE_DACL_PRESENT is the NULL DACL");
        assertEquals(cur.owner(), cur.with(absent, 0).owner());
    }

    @Test
    void childrenInheritWhatTheParentPassesOnWithCreatorOwnerReplaced() {
        SecurityDescriptor parent = new SecurityDescriptor(SecurityDescriptor.SE_DACL_PRESENT, ALICE, STAFF, null, Acl.of(List.of(
                new Ace(Ace.ACCESS_ALLOWED, Ace.OBJECT_INHERIT | Ace.CONTAINER_INHERIT, AccessMask.FILE_WRITE_DATA,
                        Sid.CREATOR_OWNER),
                new Ace(Ace.ACCESS_ALLOWED, Ace.CONTAINER_INHERIT | Ace.NO_PROPAGATE_INHERIT, AccessMask.FILE_READ_DATA, STAFF),
                new Ace(Ace.ACCESS_ALLOWED, 0, AccessMask.FILE_ALL_ACCESS, Sid.EVERYONE))));

        SecurityDescriptor file = Inheritance.create(parent, null, false, BOB, STAFF);
        assertEquals(BOB, file.owner());
        assertEquals(List.of(new Ace(Ace.ACCESS_ALLOWED, 0, AccessMask.FILE_WRITE_DATA, BOB)), file.dacl().aces());

        SecurityDescriptor dir = Inheritance.create(parent, null, true, BOB, STAFF);
        assertEquals(List.of(
                new Ace(Ace.ACCESS_ALLOWED, 0, AccessMask.FILE_WRITE_DATA, BOB),
                new Ace(Ace.ACCESS_ALLOWED, Ace.OBJECT_INHERIT | Ace.CONTAINER_INHERIT | Ace.INHERIT_ONLY,
                        AccessMask.FILE_WRITE_DATA, Sid.CREATOR_OWNER),
                new Ace(Ace.ACCESS_ALLOWED, 0, AccessMask.FILE_READ_DATA, STAFF)), dir.dacl().aces());

        SecurityDescriptor auto = new SecurityDescriptor(parent.control() | SecurityDescriptor.SE_DACL_AUTO_INHERITED,
                ALICE, STAFF, null, parent.dacl());
        SecurityDescriptor autoFile = Inheritance.create(auto, null, false, BOB, STAFF);
        assertEquals(Ace.INHERITED, autoFile.dacl().aces().get(0).flags(), "marked inherited under auto-inheritance");
        assertEquals(SecurityDescriptor.SE_DACL_AUTO_INHERITED, autoFile.control() & SecurityDescriptor.SE_DACL_AUTO_INHERITED);

        SecurityDescriptor none = new SecurityDescriptor(SecurityDescriptor.SE_DACL_PRESENT, ALICE, STAFF, null,
                Acl.of(List.of(new Ace(Ace.ACCESS_ALLOWED, 0, AccessMask.FILE_ALL_ACCESS, Sid.EVERYONE))));
        assertNull(Inheritance.create(none, null, false, BOB, STAFF), "nothing passed on: the default applies");

        SecurityDescriptor supplied = new SecurityDescriptor(SecurityDescriptor.SE_DACL_PRESENT | SecurityDescriptor.SE_DACL_PROTECTED,
                null, null, null, Acl.of(List.of(new Ace(Ace.ACCESS_ALLOWED, 0, AccessMask.GENERIC_READ, BOB))));
        SecurityDescriptor protectedFile = Inheritance.create(parent, supplied, false, BOB, STAFF);
        assertEquals(List.of(new Ace(Ace.ACCESS_ALLOWED, 0, AccessMask.FILE_GENERIC_READ, BOB)), protectedFile.dacl().aces(),
                "a protected DACL inherits nothing");
        SecurityDescriptor open = new SecurityDescriptor(SecurityDescriptor.SE_DACL_PRESENT, null, null, null, supplied.dacl());
        assertEquals(2, Inheritance.create(parent, open, false, BOB, STAFF).dacl().aces().size(), "explicit, then inherited");
    }

    @Test
    void theModeSaysWhatAFileWithoutADescriptorGrants() {
        SecurityDescriptor sd = SecurityDescriptor.fromMode(ALICE, STAFF, 0640);
        assertEquals(AccessMask.FILE_GENERIC_READ | AccessMask.FILE_GENERIC_WRITE | AccessMask.DELETE
                | AccessMask.FILE_DELETE_CHILD | AccessMask.WRITE_DAC, AccessCheck.granted(sd, token(ALICE)));
        assertEquals(AccessMask.FILE_ALL_ACCESS, AccessCheck.granted(SecurityDescriptor.fromMode(ALICE, STAFF, 0700),
                token(ALICE)));
        assertEquals(AccessMask.FILE_GENERIC_READ, AccessCheck.granted(sd, token(BOB, STAFF)));
        assertEquals(0, AccessCheck.granted(sd, token(BOB)));
        assertEquals(1000, ALICE.unixUid());
        assertEquals(-1, ALICE.unixGid());
        assertEquals(100, STAFF.unixGid());
        assertEquals(-1, Sid.EVERYONE.unixUid());
    }
}
