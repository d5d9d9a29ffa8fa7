package dev.ioqos.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import org.junit.jupiter.api.Test;

class TlsWarmupTest {
  private static SelfSignedCertificate certificate(String name) throws Exception {
    return SelfSignedCertificate.create(
        name, List.of("localhost"), List.of(InetAddress.getLoopbackAddress()), Duration.ofDays(1));
  }

  private static SSLContext server(SelfSignedCertificate certificate) throws Exception {
    char[] password = new char[0];
    KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    keys.init(certificate.keyStore("metrics", password), password);
    SSLContext tls = SSLContext.getInstance("TLS");
    tls.init(keys.getKeyManagers(), null, null);
    return tls;
  }

  @Test
  void aClientTrustingTheCertificateCompletesTheHandshake() throws Exception {
    SelfSignedCertificate made = certificate("ioqos-agent node-a");
    int steps = TlsWarmup.handshake(server(made), made.certificate());
    // TLS 1.3: ClientHello, the server's flight, the client's Finished (and a session ticket).
    assertThat(steps).isBetween(2, 10);
  }

  @Test
  void aCertificateTheServerDoesNotHoldFailsTheHandshake() throws Exception {
    SelfSignedCertificate served = certificate("ioqos-agent node-a");
    SelfSignedCertificate other = certificate("someone else");
    assertThatThrownBy(() -> TlsWarmup.handshake(server(served), other.certificate()))
        .isInstanceOf(SSLException.class);
  }
}
