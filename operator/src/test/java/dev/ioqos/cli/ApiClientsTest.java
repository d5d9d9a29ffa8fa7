package dev.ioqos.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.KubernetesClient;
import org.junit.jupiter.api.Test;

class ApiClientsTest {
  @Test
  void aBrokenWatchIsMadeAgainWithinEightSecondsOfTheApiServersReturn() {
    try (KubernetesClient client = ApiClients.forRole("agent")) {
      // fabric8 waits the interval times 2^min(attempt, 5): 250 ms grows to 8 s, not 32 s.
      assertThat(client.getConfiguration().getWatchReconnectInterval()).isEqualTo(250);
      assertThat(client.getConfiguration().getUserAgent()).startsWith("ioqos-agent/");
    }
  }
}
