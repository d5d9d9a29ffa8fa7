package dev.ioqos.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import org.junit.jupiter.api.Test;

class SelfSignedCertificateTest {
  @Test
  void theJdkReadsItVerifiesItsSignatureAndSeesItsNames() throws Exception {
    SelfSignedCertificate made =
        SelfSignedCertificate.create(
            "ioqos-agent node-a",
            List.of("localhost", "ioqos-agent-metrics.ioqos-system.svc"),
            List.of(InetAddress.getByName("10.244.0.3"), InetAddress.getByName("::1")),
            Duration.ofDays(365));
    X509Certificate cert = made.certificate();

    cert.verify(cert.getPublicKey()); // self-signed
    cert.checkValidity(new Date());
    cert.checkValidity(Date.from(Instant.now().plus(Duration.ofDays(364))));
    assertThat(cert.getVersion()).isEqualTo(3);
    assertThat(cert.getSigAlgName()).isEqualTo("SHA256withECDSA");
    assertThat(cert.getSubjectX500Principal().getName()).isEqualTo("CN=ioqos-agent node-a");
    assertThat(cert.getIssuerX500Principal()).isEqualTo(cert.getSubjectX500Principal());
    assertThat(cert.getSubjectAlternativeNames())
        .extracting(entry -> entry.get(0) + "=" + entry.get(1))
        .containsExactly(
            "2=localhost",
            "2=ioqos-agent-metrics.ioqos-system.svc",
            "7=10.244.0.3",
            "7=0:0:0:0:0:0:0:1");

    KeyStore store = made.keyStore("metrics", "x".toCharArray());
    assertThat(store.getCertificate("metrics")).isEqualTo(cert);
    assertThat(store.getKey("metrics", "x".toCharArray())).isNotNull();
  }

  @Test
  void longContentUsesTheLongLengthForm() {
    byte[] tlv = SelfSignedCertificate.tlv(0x04, new byte[300]);
    assertThat(tlv[0]).isEqualTo((byte) 0x04);
    assertThat(tlv[1]).isEqualTo((byte) 0x82);
    assertThat(((tlv[2] & 0xff) << 8) | (tlv[3] & 0xff)).isEqualTo(300);
    assertThat(tlv).hasSize(304);
  }
}
