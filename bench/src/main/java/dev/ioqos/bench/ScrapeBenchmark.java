package dev.ioqos.bench;

import dev.ioqos.cgroup.CgroupFiles;
import dev.ioqos.cgroup.CgroupIoException;
import dev.ioqos.cgroup.CgroupTree;
import dev.ioqos.cgroup.ReadBuffer;
import dev.ioqos.core.CgroupDriver;
import dev.ioqos.core.DeviceId;
import dev.ioqos.core.IoLimits;
import dev.ioqos.core.IoPressure;
import dev.ioqos.core.IoPressureScan;
import dev.ioqos.core.IoSettings;
import dev.ioqos.core.IoStat;
import dev.ioqos.core.IoStatScan;
import dev.ioqos.core.PodCgroupLayout;
import dev.ioqos.core.PodUid;
import dev.ioqos.core.QosClass;
import dev.ioqos.core.policy.WeightMechanism;
import dev.ioqos.metrics.AgentMetrics;
import dev.ioqos.metrics.MetricsServer;
import dev.ioqos.metrics.TierState;
import dev.ioqos.probe.CgroupVersion;
import dev.ioqos.probe.DiskCapability;
import dev.ioqos.probe.KubepodsCapability;
import dev.ioqos.probe.NodeCapabilities;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URL;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One scrape of the agent's metrics for 250 pods x 2 disks on a fixture cgroup tree (files in a
 * temp directory shaped like a kubelet node with the systemd driver), against the bare cost of
 * reading the same files (each pod's io.stat and io.pressure, and /proc/pressure/io). {@link
 * #scrape} is the /metrics handler's own call ({@link AgentMetrics#scrape(OutputStream)}) without
 * HTTP; {@link #scrapeHttp} adds the agent's HTTP server on loopback. Every scrape reads every file
 * afresh: the benchmark's clock moves past the snapshot age before each one.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 10, time = 1)
@Fork(
    value = 1,
    jvmArgsAppend = {"-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-XX:ActiveProcessorCount=1"})
public class ScrapeBenchmark {
  static final int PODS = 250;
  static final PodCgroupLayout LAYOUT = PodCgroupLayout.of(CgroupDriver.SYSTEMD, "/");
  static final DeviceId VDA = new DeviceId(254, 0);
  static final DeviceId VDB = new DeviceId(254, 16);

  private Path root;
  private final AtomicLong nanos = new AtomicLong();
  private AgentMetrics metrics;
  private final List<Path> files = new ArrayList<>();
  private final ByteBuffer buffer = ByteBuffer.allocateDirect(8192);
  private final CgroupFiles cgroupFiles = new CgroupFiles();
  private final CountingStream sink = new CountingStream();
  private final ReadBuffer readBuffer = new ReadBuffer(1024);
  private final IoStatScan statScan = new IoStatScan();
  private final IoPressureScan pressureScan = new IoPressureScan();
  private final byte[] httpBuffer = new byte[64 * 1024];
  private boolean[] isStat;
  private MetricsServer server;
  private URL metricsUrl;

  /** Milliseconds to sleep before each operation (outside its time): a scraper's pause. */
  @Param({"0"})
  public int pauseMs;

  @Setup(Level.Invocation)
  public void pause() throws InterruptedException {
    if (pauseMs > 0) {
      Thread.sleep(pauseMs);
    }
  }

  /** Whether the JVM and process meters the agent registers are in the scrape too. */
  @Param({"true"})
  public boolean jvm;

  @Setup(Level.Trial)
  public void buildTree() throws IOException {
    root = Files.createTempDirectory("ioqos-bench");
    Path cgroupfs = root.resolve("cgroup");
    Path procfs = root.resolve("proc");
    Files.createDirectories(procfs.resolve("pressure"));
    Path nodePressure =
        Files.writeString(
            procfs.resolve("pressure/io"),
            "some avg10=1.44 avg60=0.26 avg300=0.05 total=187487\n"
                + "full avg10=1.44 avg60=0.26 avg300=0.05 total=185599\n");
    files.add(nodePressure);
    NodeCapabilities capabilities =
        new NodeCapabilities(
            CgroupVersion.V2,
            true,
            new KubepodsCapability(CgroupDriver.SYSTEMD, LAYOUT.kubepodsPath(), true),
            true,
            false,
            true,
            "6.12.118+deb13-amd64",
            List.of(
                new DiskCapability("vda", VDA, "none", false, false, WeightMechanism.NONE),
                new DiskCapability("vdb", VDB, "bfq", true, false, WeightMechanism.BFQ)));
    IoSettings low =
        new IoSettings(
            OptionalInt.empty(),
            OptionalInt.of(10),
            Map.of(
                DeviceId.parse("254:16"),
                IoLimits.NONE.with(IoLimits.Key.WBPS, 20_971_520L).with(IoLimits.Key.WIOPS, 200L)),
            Map.of());
    metrics =
        new AgentMetrics(
            () -> capabilities,
            () -> Optional.of(new CgroupTree(cgroupfs, LAYOUT.kubepodsPath())),
            uid -> low,
            root.resolve("sys"),
            procfs,
            Duration.ofMillis(500),
            nanos::get,
            jvm);
    for (int i = 0; i < PODS; i++) {
      String uid = String.format("%08x-0000-4000-8000-%012x", i, i);
      String path = LAYOUT.podPath(QosClass.BURSTABLE, PodUid.of(uid));
      Path dir = cgroupfs.resolve(path.substring(1));
      Files.createDirectories(dir);
      files.add(
          Files.writeString(
              dir.resolve("io.stat"),
              "254:0 rbytes="
                  + (1_048_576L * i)
                  + " wbytes="
                  + (20_971_520L + i)
                  + " rios="
                  + (256 + i)
                  + " wios=5120 dbytes=0 dios=0\n"
                  + "254:16 rbytes=73728 wbytes="
                  + (4_096L * i)
                  + " rios=18 wios="
                  + i
                  + " dbytes=0 dios=0\n"));
      files.add(
          Files.writeString(
              dir.resolve("io.pressure"),
              "some avg10=22.40 avg60=4.29 avg300=0.94 total="
                  + (4_480_927L + i)
                  + "\nfull avg10=22.40 avg60=4.29 avg300=0.94 total="
                  + (4_480_000L + i)
                  + "\n"));
      metrics
          .pods()
          .managed(
              uid,
              "ns-" + (i % 10),
              "pod-" + i,
              i % 2 == 0 ? "high" : "low",
              path,
              TierState.APPLIED);
    }
    if (!exposition().contains("pod=\"pod-249\"")) {
      throw new IllegalStateException("the scrape lacks the fixture's pods");
    }
    isStat = new boolean[files.size()];
    for (int i = 0; i < files.size(); i++) {
      isStat[i] = files.get(i).getFileName().toString().equals("io.stat");
    }
    server =
        MetricsServer.start(
            new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), metrics, () -> true);
    metricsUrl = URI.create("http://127.0.0.1:" + server.port() + "/metrics").toURL();
  }

  @TearDown(Level.Trial)
  public void removeTree() throws IOException {
    if (server != null) {
      server.close();
    }
    metrics.close();
    try (Stream<Path> walk = Files.walk(root)) {
      for (Path path : walk.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(path);
      }
    }
  }

  /** One scrape as /metrics serves it: read every pod's files, render the text format. */
  @Benchmark
  public long scrape() throws IOException {
    nanos.addAndGet(Duration.ofSeconds(1).toNanos());
    sink.reset();
    metrics.scrape(sink);
    return sink.count;
  }

  /** Rendering alone: a scrape within the snapshot age reads no file. */
  @Benchmark
  public long renderOnly() throws IOException {
    sink.reset();
    metrics.scrape(sink);
    return sink.count;
  }

  /** The floor: open, read to EOF and close the same 501 files, nothing else. */
  @Benchmark
  public long bareRead() throws IOException {
    long total = 0;
    for (Path file : files) {
      try (FileChannel channel =
          FileChannel.open(file, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
        int read;
        while ((read = channel.read(buffer)) >= 0) {
          total += read;
          buffer.clear();
        }
      }
    }
    return total;
  }

  /**
   * What a scrape does before it writes: read every file into one reused buffer and scan its bytes
   * with the agent's scanners ({@link IoStatScan}, {@link IoPressureScan}).
   */
  @Benchmark
  public long readAndScan() throws CgroupIoException {
    long total = 0;
    for (int i = 0; i < files.size(); i++) {
      cgroupFiles.readPath(files.get(i), readBuffer);
      if (isStat[i]) {
        statScan.scan(readBuffer.bytes(), readBuffer.length());
        total += statScan.count();
      } else {
        pressureScan.scan(readBuffer.bytes(), readBuffer.length());
        total += pressureScan.someMicros();
      }
    }
    return total;
  }

  /** One scrape through the agent's HTTP server on loopback (keep-alive), body read whole. */
  @Benchmark
  public long scrapeHttp() throws IOException {
    nanos.addAndGet(Duration.ofSeconds(1).toNanos());
    HttpURLConnection connection = (HttpURLConnection) metricsUrl.openConnection();
    if (connection.getResponseCode() != 200) {
      throw new IllegalStateException("/metrics answered " + connection.getResponseCode());
    }
    long total = 0;
    try (InputStream body = connection.getInputStream()) {
      int read;
      while ((read = body.read(httpBuffer)) >= 0) {
        total += read;
      }
    }
    return total;
  }

  /** Reading as the agent did before, into a String, and parsing it with the String parsers. */
  @Benchmark
  public long readAndParse() throws CgroupIoException {
    long total = 0;
    for (Path file : files) {
      String text = cgroupFiles.readPath(file);
      if (file.getFileName().toString().equals("io.stat")) {
        total += IoStat.parse(text).size();
      } else {
        total += IoPressure.parse(file.toString(), text).some().totalMicros();
      }
    }
    return total;
  }

  int fileCount() {
    return files.size();
  }

  /** The exposition of one scrape, for the summary and the sanity check. */
  String exposition() {
    nanos.addAndGet(Duration.ofSeconds(1).toNanos());
    return metrics.scrape();
  }

  /** Counts the bytes of a scrape without keeping them. */
  static final class CountingStream extends OutputStream {
    long count;

    void reset() {
      count = 0;
    }

    @Override
    public void write(int b) {
      count++;
    }

    @Override
    public void write(byte[] b, int off, int len) {
      count += len;
    }
  }
}
