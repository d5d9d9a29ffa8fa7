package dev.ioqos.metrics;

import java.nio.ByteBuffer;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLException;
import javax.net.ssl.TrustManagerFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One TLS handshake in memory, between the metrics port's own context and a client that trusts its
 * certificate, so that the first real scraper does not pay for loading and compiling the TLS stack.
 * On a fast machine that first handshake costs tens of milliseconds; on a slow or emulated node it
 * can take longer than the server gives a client to send its request ({@link
 * MetricsServer#REQUEST_SECONDS}), and the scraper's first connection is dropped.
 */
public final class TlsWarmup {
  private static final int MAX_STEPS = 200;

  private static final Logger LOG = LoggerFactory.getLogger(TlsWarmup.class);

  private TlsWarmup() {}

  /** Runs {@link #handshake} on a daemon thread of its own and logs how long it took. */
  public static Thread inBackground(SSLContext server, X509Certificate certificate) {
    Thread thread =
        new Thread(
            () -> {
              long started = System.nanoTime();
              try {
                int steps = handshake(server, certificate);
                LOG.info(
                    "metrics port: TLS ready, the first handshake took {} ms ({} steps)",
                    (System.nanoTime() - started) / 1_000_000,
                    steps);
              } catch (GeneralSecurityException | SSLException | RuntimeException e) {
                LOG.warn("metrics port: a TLS handshake with itself failed: {}", e.toString());
              }
            },
            "ioqos-tls-warmup");
    thread.setDaemon(true);
    thread.start();
    return thread;
  }

  /**
   * Runs the handshake between {@code server} and a client trusting {@code certificate}; returns
   * the steps it took.
   *
   * @throws SSLException when the handshake fails (the context or certificate is unusable)
   */
  public static int handshake(SSLContext server, X509Certificate certificate)
      throws GeneralSecurityException, SSLException {
    SSLEngine serverEngine = server.createSSLEngine();
    serverEngine.setUseClientMode(false);
    SSLEngine clientEngine = clientContext(certificate).createSSLEngine("localhost", 443);
    clientEngine.setUseClientMode(true);
    int packet =
        Math.max(
            serverEngine.getSession().getPacketBufferSize(),
            clientEngine.getSession().getPacketBufferSize());
    int application =
        Math.max(
            serverEngine.getSession().getApplicationBufferSize(),
            clientEngine.getSession().getApplicationBufferSize());
    ByteBuffer toServer = ByteBuffer.allocate(packet * 4);
    ByteBuffer toClient = ByteBuffer.allocate(packet * 4);
    ByteBuffer empty = ByteBuffer.allocate(0);
    ByteBuffer sink = ByteBuffer.allocate(application * 2);
    clientEngine.beginHandshake();
    serverEngine.beginHandshake();
    for (int step = 1; step <= MAX_STEPS; step++) {
      advance(clientEngine, toClient, toServer, empty, sink);
      advance(serverEngine, toServer, toClient, empty, sink);
      if (done(clientEngine) && done(serverEngine)) {
        return step;
      }
    }
    throw new SSLException("the TLS handshake did not finish in " + MAX_STEPS + " steps");
  }

  private static SSLContext clientContext(X509Certificate certificate)
      throws GeneralSecurityException {
    KeyStore trusted = KeyStore.getInstance("PKCS12");
    try {
      trusted.load(null, null);
    } catch (java.io.IOException e) {
      throw new GeneralSecurityException("cannot make an empty key store", e);
    }
    trusted.setCertificateEntry("metrics", certificate);
    TrustManagerFactory trust =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    trust.init(trusted);
    SSLContext client = SSLContext.getInstance("TLS");
    client.init(null, trust.getTrustManagers(), null);
    return client;
  }

  /** Feeds the engine what its peer sent, runs its tasks and lets it write what it has to say. */
  private static void advance(
      SSLEngine engine, ByteBuffer incoming, ByteBuffer outgoing, ByteBuffer empty, ByteBuffer sink)
      throws SSLException {
    incoming.flip();
    while (incoming.hasRemaining()) {
      sink.clear();
      SSLEngineResult result = engine.unwrap(incoming, sink);
      runTasks(engine);
      if (result.getStatus() != SSLEngineResult.Status.OK || result.bytesConsumed() == 0) {
        break;
      }
    }
    incoming.compact();
    while (engine.getHandshakeStatus() == SSLEngineResult.HandshakeStatus.NEED_WRAP) {
      SSLEngineResult result = engine.wrap(empty, outgoing);
      runTasks(engine);
      if (result.getStatus() != SSLEngineResult.Status.OK) {
        throw new SSLException("the TLS handshake could not write: " + result.getStatus());
      }
    }
    runTasks(engine);
  }

  private static void runTasks(SSLEngine engine) {
    Runnable task;
    while ((task = engine.getDelegatedTask()) != null) {
      task.run();
    }
  }

  private static boolean done(SSLEngine engine) {
    SSLEngineResult.HandshakeStatus status = engine.getHandshakeStatus();
    return status == SSLEngineResult.HandshakeStatus.NOT_HANDSHAKING
        || status == SSLEngineResult.HandshakeStatus.FINISHED;
  }
}
