package io.rdmagate.smb.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** MS-SMB2 3.3.1.1 and 3.3.5.2.3: which MessageIds a connection takes, and the credits its client holds. */
class CommandSequenceWindowTest {

    @Test
    void aNewConnectionMayUseMessageIdZeroOnly() {
        CommandSequenceWindow w = new CommandSequenceWindow(8192);
        assertFalse(w.receive(1, 1), "MessageId 1 before it was granted");
        assertTrue(w.receive(0, 1), "NEGOTIATE's MessageId 0");
        assertFalse(w.receive(0, 1), "MessageId 0 again");
        assertEquals(0, w.credits());
    }

    @Test
    void grantsExtendTheWindowAndTheClientMayUseItsMessageIdsInAnyOrder() {
        CommandSequenceWindow w = new CommandSequenceWindow(8192);
        w.receive(0, 1);
        assertEquals(5, w.grant(5, 8192));
        assertTrue(w.receive(3, 1));
        assertTrue(w.receive(1, 2), "1 and 2 in one request of CreditCharge 2");
        assertFalse(w.receive(2, 1), "already taken by the multi-credit request");
        assertFalse(w.receive(5, 2), "5 was granted, 6 was not");
        assertEquals(2, w.credits(), "4 and 5 are left");
        assertTrue(w.receive(5, 1));
        assertTrue(w.receive(4, 1));
        assertEquals(0, w.credits());
        assertFalse(w.receive(6, 1));
    }

    @Test
    void theCeilingBoundsTheCreditsHeldAndAClientIsNeverLeftWithNone() {
        CommandSequenceWindow w = new CommandSequenceWindow(64);
        w.receive(0, 1);
        assertEquals(64, w.grant(1000, 64));
        assertEquals(0, w.grant(10, 64), "already at the ceiling");
        for (long id = 1; id <= 64; id++) {
            assertTrue(w.receive(id, 1));
        }
        assertEquals(0, w.credits());
        assertEquals(1, w.grant(0, 64), "a client asking for none still gets one when it holds none");
        assertFalse(w.receive(-1, 1), "0xFFFFFFFFFFFFFFFF is the server's break notifications' MessageId");
        assertFalse(w.receive(65, 65), "a CreditCharge wider than the window");
    }

    @Test
    void aMessageIdLeftUnusedStopsTheWindowAtItsCapacity() {
        CommandSequenceWindow w = new CommandSequenceWindow(16);
        w.receive(0, 1);
        w.grant(16, 16);
        for (long id = 2; id <= 16; id++) { // MessageId 1 stays unused: the window cannot slide past it
            assertTrue(w.receive(id, 1));
        }
        assertEquals(1, w.credits());
        assertEquals(0, w.grant(16, 16), "the window is 16 MessageIds wide already");
        assertTrue(w.receive(1, 1));
        assertEquals(16, w.grant(16, 16), "it slid past 1..16");
        assertTrue(w.receive(32, 1));
        assertFalse(w.receive(33, 1));
    }

    /**
     * Against a model that keeps every MessageId ever granted and received in a set: random grants
     * and requests (in order, out of order, repeated, beyond the window, multi-credit) are taken
     * or refused alike, and the credits held agree.
     */
    @Test
    void agreesWithAModelOfEveryMessageId() {
        Random rnd = new Random(33511);
        for (int run = 0; run < 200; run++) {
            int capacity = 1 + rnd.nextInt(200);
            CommandSequenceWindow w = new CommandSequenceWindow(capacity);
            BitSet received = new BitSet();
            long granted = 1; // MessageIds below this were granted
            List<Long> unused = new ArrayList<>(List.of(0L));
            for (int step = 0; step < 2000; step++) {
                if (rnd.nextInt(3) == 0) {
                    int g = w.grant(rnd.nextInt(capacity + 2), capacity);
                    granted += g;
                    for (long id = granted - g; id < granted; id++) {
                        unused.add(id);
                    }
                    continue;
                }
                long id = unused.isEmpty() || rnd.nextInt(4) == 0 ? rnd.nextLong(granted + 4)
                        : unused.get(rnd.nextInt(unused.size()));
                int charge = rnd.nextInt(5) == 0 ? rnd.nextInt(4) : 1;
                boolean ok = true;
                for (long i = id; i < id + Math.max(1, charge); i++) {
                    ok &= i < granted && !received.get((int) i);
                }
                assertEquals(ok, w.receive(id, charge), "run " + run + " step " + step + ": MessageId " + id + " x" + charge);
                if (ok) {
                    for (long i = id; i < id + Math.max(1, charge); i++) {
                        received.set((int) i);
                        unused.remove(i);
                    }
                }
                assertEquals(unused.size(), w.credits(), "run " + run + " step " + step);
                assertTrue(w.credits() <= capacity);
            }
        }
    }
}
