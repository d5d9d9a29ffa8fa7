package dev.ioqos.bench.agent;

import dev.ioqos.testkit.ControlPlaneBinaries;
import dev.ioqos.testkit.LocalControlPlane;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * etcd + kube-apiserver from the binaries the e2e suites build (the test kit's local control
 * plane), with an audit log of every request at Metadata level, so that the agent's requests are
 * counted by the server rather than by the client that makes them.
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
  private final LocalControlPlane server;

  private ControlPlane(String version, Path auditLog, Path kubeconfig, LocalControlPlane server) {
    this.version = version;
    this.auditLog = auditLog;
    this.kubeconfig = kubeconfig;
    this.server = server;
  }

  static ControlPlane start(Path binariesDir, Path workDir) throws IOException {
    ControlPlaneBinaries binaries =
        ControlPlaneBinaries.locate(binariesDir, ControlPlaneBinaries.jvmArch());
    Path policy = Files.writeString(workDir.resolve("audit-policy.yaml"), AUDIT_POLICY);
    Path auditLog = workDir.resolve("audit.log");
    LocalControlPlane server =
        LocalControlPlane.start(
            binaries,
            Map.of(
                "--audit-policy-file", policy.toString(),
                "--audit-log-path", auditLog.toString(),
                "--audit-log-maxsize", "0"),
            () -> {});
    Path kubeconfig = Files.writeString(workDir.resolve("kubeconfig"), server.kubeconfigYaml());
    return new ControlPlane(binaries.version(), auditLog, kubeconfig, server);
  }

  String kubeconfigYaml() throws IOException {
    return Files.readString(kubeconfig);
  }

  @Override
  public void close() {
    server.close();
  }
}
