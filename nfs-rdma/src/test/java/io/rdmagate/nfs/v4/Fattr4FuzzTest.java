package io.rdmagate.nfs.v4;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.rdmagate.oncrpc.rpc.CallMutator;
import io.rdmagate.oncrpc.xdr.XdrDecoder;
import io.rdmagate.oncrpc.xdr.XdrException;
import io.rdmagate.vfs.SetAttributes;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fattr4 a client sends to set attributes (SETATTR, OPEN and CREATE's createattrs; RFC 8881
 * §5.6), driven by a fixed-seed mutation campaign over valid ones: size, mode, an ACL that maps
 * onto the mode, owner and owner_group as numbers and as names at this server's domain, times
 * set by the client or the server. Whatever the bytes, the decoder returns attributes within their
 * ranges, or refuses them with the status RFC 8881 gives (NFS4ERR_BADXDR, _INVAL, _ATTRNOTSUPP,
 * _BADOWNER, _FBIG), never another exception; what it returns, written again, reads back the same.
 * {@code -Drdmagate.fuzz.rounds=N} sets the number of inputs.
 */
class Fattr4FuzzTest {
    private static final int ROUNDS = Integer.getInteger("rdmagate.fuzz.rounds", 50_000);
    private static final Set<Integer> REFUSALS = Set.of(Nfs4.NFS4ERR_INVAL, Nfs4.NFS4ERR_ATTRNOTSUPP,
            Nfs4.NFS4ERR_BADOWNER, Nfs4.NFS4ERR_FBIG);

    @TempDir
    static Path dir;

    private static IdMap ids() throws Exception {
        Path passwd = Files.writeString(dir.resolve("passwd"), "alice:x:1000:100::/home/alice:/bin/sh\n");
        Path group = Files.writeString(dir.resolve("group"), "staff:x:100:\n");
        return new IdMap("example.org", passwd, group);
    }

    /** A fattr4: the bitmap of {@code attrs} and their values as a client writes them. */
    private static byte[] fattr(int[] attrs, ByteBuf values) {
        ByteBuf b = Unpooled.buffer();
        int[] bitmap = Fattr4.bitmap(attrs);
        b.writeInt(bitmap.length);
        for (int w : bitmap) {
            b.writeInt(w);
        }
        b.writeInt(values.readableBytes()).writeBytes(values).writeZero(-values.readableBytes() & 3);
        return bytes(b);
    }

    private static byte[] bytes(ByteBuf b) {
        byte[] out = new byte[b.readableBytes()];
        b.getBytes(b.readerIndex(), out);
        return out;
    }

    private static void string(ByteBuf b, String s) {
        byte[] a = s.getBytes(StandardCharsets.UTF_8);
        b.writeInt(a.length).writeBytes(a).writeZero(-a.length & 3);
    }

    private static void ace(ByteBuf b, int type, int mask, String who) {
        b.writeInt(type).writeInt(0).writeInt(mask);
        string(b, who);
    }

    /** An ACL whose ALLOW and DENY entries of OWNER@, GROUP@ and EVERYONE@ say {@code mode}'s rwx bits. */
    private static void acl(ByteBuf b, int mode) {
        b.writeInt(6);
        String[] who = {"OWNER@", "GROUP@", "EVERYONE@"};
        for (int c = 0; c < 3; c++) {
            int rwx = mode >> (6 - 3 * c) & 7;
            int allowed = ((rwx & 4) != 0 ? 0x1 : 0) | ((rwx & 2) != 0 ? 0x2 : 0) | ((rwx & 1) != 0 ? 0x20 : 0);
            ace(b, 0, allowed, who[c]);
            ace(b, 1, ~allowed & 0x23, who[c]);
        }
    }

    private static void time(ByteBuf b, long nanos) {
        if (nanos == SetAttributes.SERVER_TIME) {
            b.writeInt(0);
        } else {
            b.writeInt(1).writeLong(Math.floorDiv(nanos, 1_000_000_000L)).writeInt((int) Math.floorMod(nanos, 1_000_000_000L));
        }
    }

    /** The fattr4 of what was read: owners as numbers, the mode as an ACL when it came as one. */
    private static byte[] written(Fattr4.Settable s) {
        SetAttributes a = s.attributes();
        List<Integer> attrs = new ArrayList<>();
        ByteBuf v = Unpooled.buffer();
        if (a.size() != null) {
            attrs.add(Fattr4.SIZE);
            v.writeLong(a.size());
        }
        if (a.mode() != null && s.modeFromAcl()) {
            attrs.add(Fattr4.ACL);
            acl(v, a.mode());
        }
        if (a.mode() != null && !s.modeFromAcl()) {
            attrs.add(Fattr4.MODE);
            v.writeInt(a.mode());
        }
        if (a.uid() != null) {
            attrs.add(Fattr4.OWNER);
            string(v, Integer.toUnsignedString(a.uid()));
        }
        if (a.gid() != null) {
            attrs.add(Fattr4.OWNER_GROUP);
            string(v, Integer.toUnsignedString(a.gid()));
        }
        if (a.atime() != null) {
            attrs.add(Fattr4.TIME_ACCESS_SET);
            time(v, a.atime());
        }
        if (a.mtime() != null) {
            attrs.add(Fattr4.TIME_MODIFY_SET);
            time(v, a.mtime());
        }
        return fattr(attrs.stream().mapToInt(Integer::intValue).toArray(), v);
    }

    private static List<byte[]> seeds() {
        List<byte[]> seeds = new ArrayList<>();
        seeds.add(fattr(new int[] {Fattr4.SIZE}, Unpooled.buffer().writeLong(4096)));
        seeds.add(fattr(new int[] {Fattr4.MODE}, Unpooled.buffer().writeInt(0644)));
        ByteBuf owners = Unpooled.buffer();
        string(owners, "alice@example.org");
        string(owners, "staff@EXAMPLE.ORG");
        seeds.add(fattr(new int[] {Fattr4.OWNER, Fattr4.OWNER_GROUP}, owners));
        ByteBuf numbers = Unpooled.buffer().writeInt(0755);
        string(numbers, "1000");
        string(numbers, "100");
        seeds.add(fattr(new int[] {Fattr4.MODE, Fattr4.OWNER, Fattr4.OWNER_GROUP}, numbers));
        ByteBuf times = Unpooled.buffer();
        time(times, 1_700_000_000_123_456_789L);
        time(times, SetAttributes.SERVER_TIME);
        seeds.add(fattr(new int[] {Fattr4.TIME_ACCESS_SET, Fattr4.TIME_MODIFY_SET}, times));
        ByteBuf acl = Unpooled.buffer();
        acl(acl, 0750);
        seeds.add(fattr(new int[] {Fattr4.ACL}, acl));
        ByteBuf all = Unpooled.buffer().writeLong(0).writeInt(0600);
        string(all, "1000");
        time(all, SetAttributes.SERVER_TIME);
        seeds.add(fattr(new int[] {Fattr4.SIZE, Fattr4.MODE, Fattr4.OWNER, Fattr4.TIME_ACCESS_SET}, all));
        return seeds;
    }

    private static Fattr4.Settable read(byte[] b, IdMap ids) throws XdrException, Nfs4Exception {
        XdrDecoder d = new XdrDecoder(Unpooled.wrappedBuffer(b));
        Fattr4.Settable s = Fattr4.readSettable(d, ids);
        return s;
    }

    @Test
    void validAttributesReadAsWritten() throws Exception {
        IdMap ids = ids();
        List<byte[]> seeds = seeds();
        assertEquals("SetAttributes[mode=null uid=1000 gid=100 size=null atime=null mtime=null birth=null change=null dos=null]",
                read(seeds.get(2), ids).attributes().toString(), "names at the domain, the group's in another case");
        Fattr4.Settable fromAcl = read(seeds.get(5), ids);
        assertEquals(0750, fromAcl.attributes().mode());
        assertTrue(fromAcl.modeFromAcl());
        Fattr4.Settable times = read(seeds.get(4), ids);
        assertEquals(1_700_000_000_123_456_789L, times.attributes().atime());
        assertEquals(SetAttributes.SERVER_TIME, times.attributes().mtime());
        for (byte[] seed : seeds) {
            Fattr4.Settable s = read(seed, ids);
            assertEquals(s.attributes().toString(), read(written(s), ids).attributes().toString());
        }
    }

    @Test
    void mutatedAttributesAreReadWithinRangeOrRefusedWithAnNfs4Status() throws Exception {
        IdMap ids = ids();
        List<byte[]> seeds = seeds();
        Random rnd = new Random(0xfa77);
        Map<String, Integer> outcomes = new TreeMap<>();
        long t0 = System.nanoTime();
        for (int round = 0; round < ROUNDS; round++) {
            byte[] m = CallMutator.mutate(seeds.get(rnd.nextInt(seeds.size())), rnd);
            String outcome;
            try {
                Fattr4.Settable s = read(m, ids);
                SetAttributes a = s.attributes();
                assertTrue(a.size() == null || a.size() >= 0, "a size below 2^63");
                assertTrue(a.mode() == null || (a.mode() & ~07777) == 0, "mode bits only");
                assertTrue(!s.modeFromAcl() || a.mode() != null && (a.mode() & ~0777) == 0, "an ACL sets rwx bits only");
                for (Long t : new Long[] {a.atime(), a.mtime()}) {
                    assertTrue(t == null || t == SetAttributes.SERVER_TIME || t > Long.MIN_VALUE, "a time");
                }
                int[] given = Fattr4.readBitmap(new XdrDecoder(Unpooled.wrappedBuffer(m)));
                assertArrayEquals(given, s.bitmap(), "the bitmap is the one sent");
                assertEquals(a.toString(), read(written(s), ids).attributes().toString(), "what was read reads back the same");
                outcome = "read";
            } catch (XdrException e) {
                outcome = "NFS4ERR_BADXDR";
            } catch (Nfs4Exception e) {
                assertTrue(REFUSALS.contains(e.status()), "status " + e.status() + ": " + e.getMessage());
                outcome = "status " + e.status();
            }
            outcomes.merge(outcome, 1, Integer::sum);
        }
        System.out.printf("Fattr4FuzzTest: %d mutated fattr4 in %.1f s, outcomes %s%n", ROUNDS,
                (System.nanoTime() - t0) / 1e9, outcomes);
        assertTrue(outcomes.getOrDefault("read", 0) > ROUNDS / 20, "many still read: " + outcomes);
        for (int status : REFUSALS) {
            assertTrue(outcomes.containsKey("status " + status), "every refusal is exercised: " + outcomes);
        }
    }
}
