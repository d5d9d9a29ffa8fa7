package dev.ioqos.bench.agent;

import io.fabric8.kubeapitest.KubeAPIServer;
import io.fabric8.kubeapitest.KubeAPIServerConfigBuilder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * etcd + kube-apiserver from the binaries the e2e suites build (kube-api-test, offline), with an
 * audit log of every request at Metadata level, so that the agent's requests are counted by the
 * server rather than by the client that makes them.
 */
final class ControlPlane implements AutoCloseable {
  private static final String AUDIT_POLICY =
      "apiVersion: audit.k8s.io/v1\n"
          + "kind: Policy\n"
          + "omitStages: [RequestReceived]\n"
          + "rules:\n"
          + "  - level: Metadata\n";

  final String version;
  final Path auditLog;
  final Path kubeconfig;
  private final KubeAPIServer server;

  private ControlPlane(String version, Path auditLog, Path kubeconfig, KubeAPIServer server) {
    this.version = version;
    this.auditLog = auditLog;
    this.kubeconfig = kubeconfig;
    this.server = server;
  }

  static ControlPlane start(Path binariesDir, Path workDir) throws IOException {
    Path versionFile = binariesDir.resolve("k8s/ioqos-version");
    if (!Files.isRegularFile(versionFile)) {
      throw new IllegalStateException(
          "no control-plane binaries in "
              + binariesDir
              + "/k8s: build them with `e2e/control-plane/build "
              + binariesDir
              + "`");
    }
    String version = Files.readString(versionFile).strip();
    Path policy = Files.writeString(workDir.resolve("audit-policy.yaml"), AUDIT_POLICY);
    Path auditLog = workDir.resolve("audit.log");
    KubeAPIServer server =
        new KubeAPIServer(
            KubeAPIServerConfigBuilder.anAPIServerConfig()
                .withOfflineMode(true)
                .withTestDir(binariesDir.toString())
                .withApiServerVersion(version)
                .withUpdateKubeConfig(false)
                .withStartupTimeout(120_000)
                .withApiServerFlag("--audit-policy-file", policy.toString())
                .withApiServerFlag("--audit-log-path", auditLog.toString())
                .withApiServerFlag("--audit-log-maxsize", "0")
                .build());
    dev.ioqos.demo.LocalControlPlane.startServer(server, java.time.Duration.ofSeconds(120));
    Path kubeconfig = Files.writeString(workDir.resolve("kubeconfig"), server.getKubeConfigYaml());
    return new ControlPlane(version, auditLog, kubeconfig, server);
  }

  String kubeconfigYaml() throws IOException {
    return Files.readString(kubeconfig);
  }

  @Override
  public void close() {
    server.stop();
  }
}
