package io.rdmagate.interop;

import io.rdmagate.gateway.users.NtHash;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * NLM GRANTED callbacks to the Linux kernel's lockd: rdmagate runs in the guest, in a network
 * namespace of its own, so it sees the NFS client's real address (through the host's forwards
 * every client is 127.0.0.1, which a callback cannot reach). A {@code flock} over NFSv3 blocked
 * by a lock the guest's cifs client holds on the same file gets the lock as soon as the cifs
 * holder lets go, by the gateway's callback, not by the client's 30-second re-poll, and the
 * gateway never gives up on a callback.
 */
@Tag("interop")
class RdmagateNlmCallbackTest {
    private static final String PASSWORD = "Lab-pass-1";

    @RegisterExtension
    final GuestLab lab = new GuestLab();

    @Test
    void aBlockedLockIsGrantedByCallbackAsSoonAsItIsFree() {
        GuestRun run = lab.job("rdmagate-nlm-callback")
                .labScript("rdmagate-nlm-callback.sh")
                .gatewayInGuest()
                .env("SMB_USER", "lab")
                .env("SMB_PASSWORD", PASSWORD)
                .env("SMB_NTHASH", NtHash.of(PASSWORD.toCharArray()))
                .timeout(Duration.ofMinutes(15))
                .run();
        run.assertPassed(List.of("statd", "netns", "rdmagate-start", "nfs-mount", "cifs-mount", "lock-held", "lock-blocked",
                "nlm-granted-callback", "callback-taken", "nfs-unmount", "kernel-clean"));
    }
}
