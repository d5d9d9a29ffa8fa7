package dev.ioqos.metrics;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.math.BigInteger;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;

/**
 * A self-signed serving certificate made at start (EC P-256, SHA256withECDSA), the way
 * controller-runtime's secure metrics serve when no certificate is given: the connection is
 * encrypted and the client authenticates itself with a bearer token; the server is not
 * authenticated (Prometheus scrapes with insecureSkipVerify). The JDK can sign but has no public
 * API to build a certificate, so the few DER structures of RFC 5280 are written here.
 */
public final class SelfSignedCertificate {
  private static final byte[] OID_EC_WITH_SHA256 = {
    0x2a, (byte) 0x86, 0x48, (byte) 0xce, 0x3d, 0x04, 0x03, 0x02
  }; // 1.2.840.10045.4.3.2
  private static final byte[] OID_COMMON_NAME = {0x55, 0x04, 0x03}; // 2.5.4.3
  private static final byte[] OID_SUBJECT_ALT_NAME = {0x55, 0x1d, 0x11}; // 2.5.29.17
  private static final DateTimeFormatter GENERALIZED_TIME =
      DateTimeFormatter.ofPattern("yyyyMMddHHmmss'Z'").withZone(ZoneOffset.UTC);

  private final KeyPair keys;
  private final X509Certificate certificate;

  private SelfSignedCertificate(KeyPair keys, X509Certificate certificate) {
    this.keys = keys;
    this.certificate = certificate;
  }

  /**
   * A new key and certificate for {@code commonName}, valid from an hour ago for {@code validity},
   * naming {@code dnsNames} and {@code ips} as subject alternative names.
   */
  public static SelfSignedCertificate create(
      String commonName, List<String> dnsNames, List<InetAddress> ips, Duration validity)
      throws GeneralSecurityException {
    KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
    generator.initialize(new ECGenParameterSpec("secp256r1"), new SecureRandom());
    KeyPair keys = generator.generateKeyPair();
    Instant now = Instant.now();
    byte[] algorithm = sequence(oid(OID_EC_WITH_SHA256));
    byte[] name = sequence(set(sequence(oid(OID_COMMON_NAME), utf8(commonName))));
    ByteArrayOutputStream altNames = new ByteArrayOutputStream();
    for (String dns : dnsNames) {
      altNames.writeBytes(tlv(0x82, dns.getBytes(StandardCharsets.US_ASCII)));
    }
    for (InetAddress ip : ips) {
      altNames.writeBytes(tlv(0x87, ip.getAddress()));
    }
    byte[] extensions =
        tlv(
            0xa3,
            sequence(
                sequence(oid(OID_SUBJECT_ALT_NAME), tlv(0x04, tlv(0x30, altNames.toByteArray())))));
    byte[] serial = new BigInteger(64, new SecureRandom()).add(BigInteger.ONE).toByteArray();
    byte[] tbs =
        sequence(
            tlv(0xa0, tlv(0x02, new byte[] {2})), // version v3
            tlv(0x02, serial),
            algorithm,
            name,
            sequence(time(now.minus(Duration.ofHours(1))), time(now.plus(validity))),
            name,
            keys.getPublic().getEncoded(), // SubjectPublicKeyInfo, DER already
            extensions);
    Signature signer = Signature.getInstance("SHA256withECDSA");
    signer.initSign(keys.getPrivate());
    signer.update(tbs);
    byte[] signature = signer.sign();
    byte[] der = sequence(tbs, algorithm, bitString(signature));
    X509Certificate certificate =
        (X509Certificate)
            CertificateFactory.getInstance("X.509")
                .generateCertificate(new ByteArrayInputStream(der));
    certificate.verify(keys.getPublic());
    return new SelfSignedCertificate(keys, certificate);
  }

  public X509Certificate certificate() {
    return certificate;
  }

  /** An in-memory key store holding the key and certificate under {@code alias}. */
  public KeyStore keyStore(String alias, char[] password) throws GeneralSecurityException {
    KeyStore store = KeyStore.getInstance("PKCS12");
    try {
      store.load(null, null);
    } catch (java.io.IOException e) {
      throw new GeneralSecurityException("cannot make an empty key store", e);
    }
    store.setKeyEntry(
        alias, keys.getPrivate(), password, new java.security.cert.Certificate[] {certificate});
    return store;
  }

  private static byte[] time(Instant instant) {
    // RFC 5280: UTCTime through 2049, GeneralizedTime from 2050.
    String text = GENERALIZED_TIME.format(instant);
    if (instant.atZone(ZoneOffset.UTC).getYear() < 2050) {
      return tlv(0x17, text.substring(2).getBytes(StandardCharsets.US_ASCII));
    }
    return tlv(0x18, text.getBytes(StandardCharsets.US_ASCII));
  }

  private static byte[] oid(byte[] encoded) {
    return tlv(0x06, encoded);
  }

  private static byte[] utf8(String text) {
    return tlv(0x0c, text.getBytes(StandardCharsets.UTF_8));
  }

  private static byte[] bitString(byte[] bits) {
    byte[] content = new byte[bits.length + 1]; // no unused bits
    System.arraycopy(bits, 0, content, 1, bits.length);
    return tlv(0x03, content);
  }

  private static byte[] sequence(byte[]... parts) {
    return tlv(0x30, concat(parts));
  }

  private static byte[] set(byte[]... parts) {
    return tlv(0x31, concat(parts));
  }

  private static byte[] concat(byte[]... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] part : parts) {
      out.writeBytes(part);
    }
    return out.toByteArray();
  }

  /** Tag, DER length, content. */
  static byte[] tlv(int tag, byte[] content) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(content.length + 6);
    out.write(tag);
    int length = content.length;
    if (length < 0x80) {
      out.write(length);
    } else {
      int bytes = (Integer.SIZE - Integer.numberOfLeadingZeros(length) + 7) / 8;
      out.write(0x80 | bytes);
      for (int i = bytes - 1; i >= 0; i--) {
        out.write(length >>> (8 * i));
      }
    }
    out.writeBytes(content);
    return out.toByteArray();
  }
}
