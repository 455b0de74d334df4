package io.rdmagate.smb.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.rdmagate.gateway.spi.ListenerKind;
import io.rdmagate.gateway.spi.ProtocolService;
import java.util.List;
import java.util.ServiceLoader;
import java.util.Set;
import org.junit.jupiter.api.Test;

class SmbProtocolServiceTest {
    @Test
    void theGatewayFindsTheSmbServiceOnTheClassPath() {
        List<ProtocolService> found = ServiceLoader.load(ProtocolService.class).stream().map(ServiceLoader.Provider::get)
                .filter(s -> s.name().equals("smb")).toList();
        assertEquals(1, found.size());
        assertEquals(Set.of(ListenerKind.SMB, ListenerKind.SMB_DIRECT), found.getFirst().listeners());
    }
}
