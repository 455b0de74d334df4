package io.rdmagate.smb.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.hierynomus.msdtyp.AccessMask;
import com.hierynomus.msdtyp.ACL;
import com.hierynomus.msdtyp.SID;
import com.hierynomus.msdtyp.SecurityDescriptor;
import com.hierynomus.msdtyp.SecurityInformation;
import com.hierynomus.msdtyp.ace.ACE;
import com.hierynomus.msdtyp.ace.AceFlags;
import com.hierynomus.msdtyp.ace.AceTypes;
import com.hierynomus.mserref.NtStatus;
import com.hierynomus.mssmb2.SMB2CreateDisposition;
import com.hierynomus.mssmb2.SMB2CreateOptions;
import com.hierynomus.mssmb2.SMB2ShareAccess;
import com.hierynomus.mssmb2.SMBApiException;
import com.hierynomus.smbj.share.Directory;
import com.hierynomus.smbj.share.File;
import java.nio.file.Files;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Security descriptors as Windows Explorer's Security tab and icacls use them (MS-DTYP 2.4.6,
 * MS-SMB2 3.3.5.20.3 and 3.3.5.21.3), through smbj against the server over a local directory:
 * a DACL a client sets reads back as set and decides who may open the file, new files inherit
 * their directory's inheritable ACEs, and the host sees a mode that says the same.
 */
class SecurityDescriptorTest {
    @RegisterExtension
    static final SmbjShare smb = new SmbjShare();

    private static final Set<SecurityInformation> DACL = EnumSet.of(SecurityInformation.DACL_SECURITY_INFORMATION);
    private static final Set<SecurityInformation> OWNER_AND_DACL = EnumSet.of(SecurityInformation.OWNER_SECURITY_INFORMATION,
            SecurityInformation.DACL_SECURITY_INFORMATION);
    private static final SID CREATOR_OWNER = SID.fromString("S-1-3-0");

    private static void create(String name) {
        try (File f = smb.share().openFile(name, EnumSet.of(AccessMask.GENERIC_ALL), null, SMB2ShareAccess.ALL,
                SMB2CreateDisposition.FILE_OVERWRITE_IF, null)) {
            f.write(new byte[] {1, 2, 3}, 0);
        }
    }

    private static File open(String name, AccessMask access) {
        return smb.share().openFile(name, EnumSet.of(access), null, SMB2ShareAccess.ALL, SMB2CreateDisposition.FILE_OPEN, null);
    }

    private static SecurityDescriptor dacl(ACE... aces) {
        return new SecurityDescriptor(EnumSet.of(SecurityDescriptor.Control.DP), null, null, null,
                new ACL(ACL.ACL_REVISION, List.of(aces)));
    }

    private static SID owner(String name) {
        return smb.share().getSecurityInfo(name, OWNER_AND_DACL).getOwnerSid();
    }

    @Test
    void aDaclSetByAClientReadsBackAndDecidesWhatAnOpenMayDo() throws Exception {
        create("report.txt");
        SID me = owner("report.txt");
        smb.share().setSecurityInfo("report.txt", DACL, dacl(AceTypes.accessAllowedAce(Set.of(),
                EnumSet.of(AccessMask.FILE_READ_DATA, AccessMask.FILE_READ_ATTRIBUTES, AccessMask.READ_CONTROL,
                        AccessMask.SYNCHRONIZE), me)));

        List<ACE> aces = smb.share().getSecurityInfo("report.txt", DACL).getDacl().getAces();
        assertEquals(1, aces.size());
        assertEquals(me, aces.get(0).getSid());
        assertEquals(0x00120081L, aces.get(0).getAccessMask());

        // FileAllInformation needs FILE_READ_ATTRIBUTES as well (MS-FSA 2.1.5.11), which the DACL grants
        try (File f = smb.share().openFile("report.txt", EnumSet.of(AccessMask.FILE_READ_DATA,
                AccessMask.FILE_READ_ATTRIBUTES), null, SMB2ShareAccess.ALL, SMB2CreateDisposition.FILE_OPEN, null)) {
            assertEquals(3, f.getFileInformation().getStandardInformation().getEndOfFile());
        }
        SMBApiException denied = assertThrows(SMBApiException.class, () -> open("report.txt", AccessMask.FILE_WRITE_DATA));
        assertEquals(NtStatus.STATUS_ACCESS_DENIED, denied.getStatus());
        // the owner may always read and rewrite the DACL (MS-DTYP 2.5.3.2)
        smb.share().setSecurityInfo("report.txt", DACL, dacl(AceTypes.accessAllowedAce(Set.of(),
                EnumSet.of(AccessMask.GENERIC_ALL), me)));
        open("report.txt", AccessMask.FILE_WRITE_DATA).close();
    }

    @Test
    void theHostSeesAModeThatSaysWhatTheDaclSaysAndAChmodThereWins() throws Exception {
        create("shared.txt");
        SID me = owner("shared.txt");
        smb.share().setSecurityInfo("shared.txt", DACL, dacl(
                AceTypes.accessAllowedAce(Set.of(), EnumSet.of(AccessMask.GENERIC_ALL), me),
                AceTypes.accessAllowedAce(Set.of(), EnumSet.of(AccessMask.GENERIC_READ), SID.EVERYONE)));
        java.nio.file.Path host = smb.export().resolve("shared.txt");
        assertEquals("rwxr--r--", PosixFilePermissions.toString(Files.getPosixFilePermissions(host)));

        Files.setPosixFilePermissions(host, PosixFilePermissions.fromString("rw-rw----"));
        List<ACE> aces = smb.share().getSecurityInfo("shared.txt", DACL).getDacl().getAces();
        assertEquals(3, aces.size(), "the mode's owner, group and Everyone entries replace the stored DACL");
        assertEquals(0L, aces.get(2).getAccessMask(), "Everyone gets nothing from rw-rw----");
    }

    @Test
    void aBrokenDescriptorIsRefusedAndChangesNothing() throws Exception {
        create("kept.txt");
        java.nio.file.Path host = smb.export().resolve("kept.txt");
        String mode = PosixFilePermissions.toString(Files.getPosixFilePermissions(host));
        io.rdmagate.smb.msdtyp.Sid me = io.rdmagate.smb.msdtyp.Sid.unixUser(
                (Integer) Files.getAttribute(host, "unix:uid"));
        byte[] good = new io.rdmagate.smb.msdtyp.SecurityDescriptor(io.rdmagate.smb.msdtyp.SecurityDescriptor.SE_DACL_PRESENT,
                null, null, null, io.rdmagate.smb.msdtyp.Acl.of(List.of(new io.rdmagate.smb.msdtyp.Ace(
                        io.rdmagate.smb.msdtyp.Ace.ACCESS_ALLOWED, 0, 0x1F01FF, me)))).encode();
        byte[] aceTooLong = good.clone();
        aceTooLong[20 + 8 + 2] = (byte) 0xF0; // the ACE's size runs past its ACL
        byte[] truncated = java.util.Arrays.copyOf(good, 12);
        try (RawSmbClient raw = new RawSmbClient(smb.server().port()).logon()) {
            RawSmbClient.Created c = raw.create("kept.txt", 0, 0x60000 | 0x80, 7, 1); // WRITE_DAC | READ_CONTROL, FILE_OPEN
            assertEquals(0, c.status());
            int daclInfo = io.rdmagate.smb.msdtyp.SecurityDescriptor.DACL_SECURITY_INFORMATION;
            assertEquals(io.rdmagate.smb.mserref.NtStatus.INVALID_ACL, raw.setInfo(c.fileId(), 3, 0, daclInfo, aceTooLong));
            assertEquals(io.rdmagate.smb.mserref.NtStatus.INVALID_SECURITY_DESCR,
                    raw.setInfo(c.fileId(), 3, 0, daclInfo, truncated));
            assertEquals(io.rdmagate.smb.mserref.NtStatus.INVALID_SECURITY_DESCR, raw.setInfo(c.fileId(), 3, 0, daclInfo,
                    new byte[0]));
            raw.close(c.fileId());

            var secd = new java.util.LinkedHashMap<String, byte[]>();
            secd.put("SecD", truncated);
            java.nio.ByteBuffer r = raw.sendCreate("never.txt", 0, 0x12019F, 7, 2, secd).get(20, java.util.concurrent.TimeUnit.SECONDS);
            assertEquals(io.rdmagate.smb.mserref.NtStatus.INVALID_SECURITY_DESCR, RawSmbClient.created(r).status());
        }
        assertEquals(3, smb.share().getSecurityInfo("kept.txt", DACL).getDacl().getAces().size(), "the mode's DACL still");
        assertEquals(mode, PosixFilePermissions.toString(Files.getPosixFilePermissions(host)));
        assertEquals(false, Files.exists(smb.export().resolve("never.txt")), "a CREATE with a broken SD buffer makes nothing");
    }

    @Test
    void aNewFileInheritsItsDirectorysInheritableEntries() throws Exception {
        smb.share().mkdir("projects");
        SID me = owner("projects");
        try (Directory d = smb.share().openDirectory("projects", EnumSet.of(AccessMask.READ_CONTROL, AccessMask.WRITE_DAC),
                null, SMB2ShareAccess.ALL, SMB2CreateDisposition.FILE_OPEN, EnumSet.noneOf(SMB2CreateOptions.class))) {
            d.setSecurityInformation(dacl(
                    AceTypes.accessAllowedAce(Set.of(), EnumSet.of(AccessMask.GENERIC_ALL), me),
                    AceTypes.accessAllowedAce(EnumSet.of(AceFlags.OBJECT_INHERIT_ACE, AceFlags.CONTAINER_INHERIT_ACE,
                            AceFlags.INHERIT_ONLY_ACE), EnumSet.of(AccessMask.GENERIC_ALL), CREATOR_OWNER),
                    AceTypes.accessAllowedAce(EnumSet.of(AceFlags.OBJECT_INHERIT_ACE),
                            EnumSet.of(AccessMask.GENERIC_READ), SID.EVERYONE)), DACL);
        }
        create("projects\\plan.txt");
        List<ACE> aces = smb.share().getSecurityInfo("projects\\plan.txt", DACL).getDacl().getAces();
        assertEquals(2, aces.size(), aces.toString());
        assertEquals(me, aces.get(0).getSid(), "CREATOR OWNER stands for whoever created the file");
        assertEquals(0x001F01FFL, aces.get(0).getAccessMask(), "generic rights mapped to the file's");
        assertEquals(SID.EVERYONE, aces.get(1).getSid());
        assertEquals(0x00120089L, aces.get(1).getAccessMask());
        assertEquals(Set.of(), aces.get(1).getAceHeader().getAceFlags(), "inherit flags end at a file");
        assertEquals("rwxr--r--", PosixFilePermissions.toString(
                Files.getPosixFilePermissions(smb.export().resolve("projects/plan.txt"))));
    }
}
