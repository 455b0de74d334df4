package io.rdmagate.smb.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.hierynomus.msdtyp.AccessMask;
import com.hierynomus.msfscc.fileinformation.FileModeInformation;
import com.hierynomus.mssmb2.SMB2CreateDisposition;
import com.hierynomus.mssmb2.SMB2CreateOptions;
import com.hierynomus.mssmb2.SMB2ShareAccess;
import com.hierynomus.smbj.share.DiskShare;
import com.hierynomus.smbj.share.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.EnumSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * An open's mode (MS-FSA 2.1.5.1 Open.Mode, MS-FSCC 2.4.26 FileModeInformation): what a CREATE's
 * options ask (FILE_WRITE_THROUGH for a database's log, FILE_SEQUENTIAL_ONLY) the open keeps and
 * reports, and its writes go through to the disk before they are answered (which only a power
 * loss shows: the lab's {@code PowerLossTest}).
 */
class OpenModeTest {
    private static final int FILE_WRITE_THROUGH = 0x2;
    private static final int FILE_SEQUENTIAL_ONLY = 0x4;

    @RegisterExtension
    static final SmbjShare smb = new SmbjShare();

    private static File open(DiskShare share, String name, SMB2CreateOptions... options) {
        return share.openFile(name, EnumSet.of(AccessMask.GENERIC_READ, AccessMask.GENERIC_WRITE), null,
                SMB2ShareAccess.ALL, SMB2CreateDisposition.FILE_OVERWRITE_IF,
                options.length == 0 ? EnumSet.noneOf(SMB2CreateOptions.class) : EnumSet.of(options[0], options));
    }

    @Test
    void anOpenKeepsTheModeItsCreateAskedForAndWritesThroughIt() throws Exception {
        DiskShare share = smb.share();
        byte[] data = "written through".getBytes(StandardCharsets.UTF_8);
        try (File f = open(share, "log.bin", SMB2CreateOptions.FILE_WRITE_THROUGH, SMB2CreateOptions.FILE_SEQUENTIAL_ONLY)) {
            assertEquals(FILE_WRITE_THROUGH | FILE_SEQUENTIAL_ONLY, f.getFileInformation(FileModeInformation.class).getMode());
            f.write(data, 0);
        }
        assertArrayEquals(data, Files.readAllBytes(smb.export().resolve("log.bin")));
        try (File f = open(share, "plain.bin")) {
            assertEquals(0, f.getFileInformation(FileModeInformation.class).getMode(), "no options, no mode");
            f.setFileInformation(new FileModeInformation(FILE_WRITE_THROUGH));
            assertEquals(FILE_WRITE_THROUGH, f.getFileInformation(FileModeInformation.class).getMode(),
                    "set later through FileModeInformation");
        }
    }
}
