package dev.ioqos.metrics;

import dev.ioqos.cgroup.CgroupFiles;
import dev.ioqos.cgroup.CgroupIoException;
import dev.ioqos.cgroup.CgroupTree;
import dev.ioqos.cgroup.HeldFile;
import dev.ioqos.cgroup.IoFile;
import dev.ioqos.cgroup.ReadBuffer;
import dev.ioqos.core.CgroupDriver;
import dev.ioqos.core.IoSettings;
import dev.ioqos.core.PodCgroupLayout;
import dev.ioqos.core.PodUid;
import dev.ioqos.core.QosClass;
import dev.ioqos.probe.CapabilityProbe;
import dev.ioqos.probe.NodeCapabilities;
import dev.ioqos.testing.Fixtures;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The Debian 6.12 node fixture (real kernel output) with a hand-driven clock, a counting file
 * reader and a ledger stand-in, for the metrics tests.
 */
final class MetricsFixture {
  static final String FIXTURE_POD = "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d";
  static final PodCgroupLayout LAYOUT = PodCgroupLayout.of(CgroupDriver.SYSTEMD, "/");

  final Path node;
  final Path cgroupfs;
  final AtomicLong nanos = new AtomicLong(1_000_000_000L);
  final Map<String, IoSettings> ledger = new HashMap<>();
  final CountingFiles files = new CountingFiles();
  final NodeCapabilities capabilities;
  final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);

  MetricsFixture(Path temp) {
    node = Fixtures.copy("node/debian-6.12-systemd", temp);
    cgroupfs = node.resolve("cgroup");
    capabilities =
        new CapabilityProbe(cgroupfs, node.resolve("sys"), node.resolve("proc"))
            .probe(Optional.of(LAYOUT));
  }

  PodIoMetrics podMetrics() {
    PodIoMetrics pods =
        new PodIoMetrics(
            files,
            () -> Optional.of(new CgroupTree(cgroupfs, LAYOUT.kubepodsPath())),
            new DeviceNames(() -> capabilities, node.resolve("sys")),
            uid -> ledger.getOrDefault(uid, IoSettings.NONE),
            capabilities::psi,
            Duration.ofSeconds(1),
            nanos::get);
    return pods;
  }

  static String podPath(String uid, QosClass qos) {
    return LAYOUT.podPath(qos, PodUid.of(uid));
  }

  Path podDir(String uid, QosClass qos) {
    return cgroupfs.resolve(podPath(uid, qos).substring(1));
  }

  /** Creates a pod cgroup with the io files of a fresh 6.12 cgroup. */
  Path createPod(String uid, QosClass qos) {
    Path dir = podDir(uid, qos);
    try {
      Files.createDirectories(dir);
      Files.writeString(dir.resolve("io.stat"), "");
      Files.writeString(
          dir.resolve("io.pressure"),
          "some avg10=0.00 avg60=0.00 avg300=0.00 total=0\n"
              + "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return dir;
  }

  /**
   * Gives a file new content in place, as the kernel's cgroup file changes: the same file (inode)
   * before and after, so that a reader that keeps it open sees the new content at offset 0.
   */
  static void replace(Path file, String content) {
    try {
      Files.writeString(file, content);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  void advance(Duration duration) {
    nanos.addAndGet(duration.toNanos());
  }

  /** The registry's meters and the pods' series, as {@link AgentMetrics#scrape()} joins them. */
  String scrape(PodIoMetrics pods) {
    pods.refresh();
    return registry.scrape(AgentMetrics.CONTENT_TYPE) + pods.render();
  }

  /** Counts the cgroup file reads, to prove a scrape reads each file once. */
  static final class CountingFiles extends CgroupFiles {
    final AtomicInteger reads = new AtomicInteger();

    @Override
    public String read(dev.ioqos.cgroup.CgroupDir dir, IoFile file) throws CgroupIoException {
      reads.incrementAndGet();
      return super.read(dir, file);
    }

    @Override
    public void read(dev.ioqos.cgroup.CgroupDir dir, IoFile file, ReadBuffer into)
        throws CgroupIoException {
      reads.incrementAndGet();
      super.read(dir, file, into);
    }

    @Override
    public void read(HeldFile file, ReadBuffer into) throws CgroupIoException {
      reads.incrementAndGet();
      super.read(file, into);
    }
  }
}
