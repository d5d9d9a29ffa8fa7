package dev.ioqos.demo;

import dev.ioqos.core.QosClass;
import dev.ioqos.node.NodeConfig;
import dev.ioqos.testkit.SandboxNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The simulated node: a {@link SandboxNode} tree of plain files shaped like a Debian 6.12 node (vda
 * on none, vdb on bfq with kubelet's root on vdb1). Removed with the demo's temp directory.
 */
final class SandboxDemoNode implements DemoNode {
  private static final long MIB = 1024 * 1024;

  private final SandboxNode node;

  SandboxDemoNode(Path root) {
    this.node = new SandboxNode(root);
  }

  @Override
  public NodeConfig config() {
    return node.config();
  }

  @Override
  public String description() {
    return "sandbox node tree in "
        + node.root
        + " (cgroup v2, systemd driver, vda on none, vdb on bfq, /var/lib/kubelet on vdb1)";
  }

  @Override
  public Path createPod(String uid, QosClass qos) {
    return node.createPod(uid, qos);
  }

  @Override
  public boolean simulateIo(Path podDir, int scale) {
    long written = scale * 48 * MIB;
    long read = scale * 16 * MIB;
    try {
      Files.writeString(
          podDir.resolve("io.stat"),
          "254:0 rbytes=0 wbytes=0 rios=0 wios=0 dbytes=0 dios=0\n"
              + String.format(
                  "254:16 rbytes=%d wbytes=%d rios=%d wios=%d dbytes=0 dios=0%n",
                  read, written, read / 4096, written / 65536));
      long stalledMicros = scale * 250_000L;
      Files.writeString(
          podDir.resolve("io.pressure"),
          String.format(
              "some avg10=0.00 avg60=0.00 avg300=0.00 total=%d%n"
                  + "full avg10=0.00 avg60=0.00 avg300=0.00 total=%d%n",
              stalledMicros * 2, stalledMicros));
      return true;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void close() {
    // Plain files in the demo's temp directory: they go with it.
  }
}
