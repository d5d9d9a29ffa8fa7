package dev.ioqos.bench;

import dev.ioqos.cgroup.CgroupFiles;
import dev.ioqos.cgroup.CgroupIoException;
import dev.ioqos.cgroup.CgroupTree;
import dev.ioqos.cgroup.VerifiedWriter;
import dev.ioqos.core.DeviceId;
import dev.ioqos.core.IoLimits;
import dev.ioqos.core.IoSettings;
import dev.ioqos.core.QosClass;
import dev.ioqos.core.policy.DesiredSettings;
import dev.ioqos.node.ApplyOutcome;
import dev.ioqos.node.Ledger;
import dev.ioqos.node.LedgerEntry;
import dev.ioqos.node.PodApplier;
import dev.ioqos.node.PodTarget;
import dev.ioqos.testkit.SandboxNode;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
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
 * The agent's write path for one pod, on a sandbox node tree, against its floor. {@link
 * #tierChange} is what a tier change costs once the event is in: {@link PodApplier#apply} with the
 * other tier each time (the ledger records the union first, then io.bfq.weight and io.max are
 * written and read back, the old tier's cap is lifted, the ledger records the result). {@link
 * #verifyUnchanged} is a resync of a pod whose values hold (reads only). {@link #bareWrites} writes
 * and reads back the same two files with nothing else: the physical part.
 *
 * <p>The cgroup files are on tmpfs, as cgroupfs is in memory. The ledger is persisted with fsync:
 * {@code ledgerOn=shm} keeps it on tmpfs too (what bench/run measures); {@code ledgerOn=disk} puts
 * it under java.io.tmpdir, as the agent's /var/lib/ioqos is on the node's disk. The ledger holds
 * {@code otherPods} other pods' entries besides this one.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(
    value = 1,
    jvmArgsAppend = {"-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"})
public class ApplyBenchmark {
  static final String UID = "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d";
  static final DeviceId VDA = new DeviceId(254, 0);
  static final DesiredSettings LOW =
      new DesiredSettings(
          OptionalInt.empty(),
          OptionalInt.of(10),
          Map.of(),
          Map.of(VDA, IoLimits.NONE.with(IoLimits.Key.WBPS, 20_971_520)),
          Map.of(),
          List.of());
  static final DesiredSettings HIGH =
      new DesiredSettings(
          OptionalInt.empty(), OptionalInt.of(136), Map.of(), Map.of(), Map.of(), List.of());

  @Param({"shm", "disk"})
  public String ledgerOn;

  /** Other pods the ledger already records (a node with many managed pods). */
  @Param({"249"})
  public int otherPods;

  private Path root;
  private Path ledgerRoot;
  private Path podDir;
  private PodApplier applier;
  private PodTarget pod;
  private boolean low;
  private final ByteBuffer readBack = ByteBuffer.allocate(4096);

  @Setup(Level.Trial)
  public void setUp() throws IOException, CgroupIoException {
    // The cgroup files are always in memory (as cgroupfs is); only the ledger moves.
    root = Files.createTempDirectory(Path.of("/dev/shm"), "ioqos-apply-bench");
    ledgerRoot =
        ledgerOn.equals("shm")
            ? root
            : Files.createTempDirectory(
                Path.of(System.getProperty("java.io.tmpdir")), "ioqos-apply-ledger");
    SandboxNode node = new SandboxNode(root.resolve("node"));
    podDir = node.createPod(UID, QosClass.BURSTABLE);
    pod =
        new PodTarget(
            UID,
            "db",
            "pg-0",
            node.layout.podPath(QosClass.BURSTABLE, dev.ioqos.core.PodUid.of(UID)));
    Ledger ledger = Ledger.open(ledgerRoot.resolve("state"));
    for (int i = 0; i < otherPods; i++) {
      String uid = String.format("%08x-0000-4000-8000-%012x", i, i);
      ledger.put(
          new LedgerEntry(
              uid,
              "ns-" + (i % 10),
              "pod-" + i,
              node.layout.podPath(QosClass.BURSTABLE, dev.ioqos.core.PodUid.of(uid)),
              "storage",
              "low",
              new IoSettings(
                  OptionalInt.empty(),
                  OptionalInt.of(10),
                  Map.of(
                      DeviceId.parse("254:0"), IoLimits.NONE.with(IoLimits.Key.WBPS, 20_971_520L)),
                  Map.of())));
    }
    applier =
        new PodApplier(
            new CgroupTree(node.cgroupfs, node.layout.kubepodsPath()),
            new VerifiedWriter(new CgroupFiles()),
            ledger);
    // Fail here, not in a figure, when the path does not write what it should.
    ApplyOutcome first = applier.apply(pod, "storage", "low", LOW);
    if (first.failed()
        || !Files.readString(podDir.resolve("io.bfq.weight")).equals("default 10\n")) {
      throw new IllegalStateException("the apply did not land: " + first);
    }
    low = true;
  }

  @TearDown(Level.Trial)
  public void tearDown() throws IOException {
    delete(root);
    if (!ledgerRoot.equals(root)) {
      delete(ledgerRoot);
    }
  }

  private static void delete(Path dir) throws IOException {
    try (Stream<Path> walk = Files.walk(dir)) {
      for (Path path : walk.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(path);
      }
    }
  }

  /** A tier change: the other tier's values written, verified and recorded. */
  @Benchmark
  public ApplyOutcome tierChange() throws CgroupIoException {
    low = !low;
    ApplyOutcome outcome =
        low
            ? applier.apply(pod, "storage", "low", LOW)
            : applier.apply(pod, "storage", "high", HIGH);
    if (outcome.unchanged() || outcome.failed()) {
      throw new IllegalStateException("a tier change wrote nothing: " + outcome);
    }
    return outcome;
  }

  /**
   * A resync of a pod whose values hold: the kernel's values read and compared, nothing written.
   */
  @Benchmark
  public ApplyOutcome verifyUnchanged() throws CgroupIoException {
    ApplyOutcome outcome =
        low
            ? applier.apply(pod, "storage", "low", LOW)
            : applier.apply(pod, "storage", "high", HIGH);
    if (!outcome.unchanged()) {
      throw new IllegalStateException("an unchanged pod was written: " + outcome);
    }
    return outcome;
  }

  /** The floor: the same writes (bfq weight, and io.max set or lifted), each read back once. */
  @Benchmark
  public int bareWrites() throws IOException {
    low = !low;
    int read = 0;
    read += writeAndRead(podDir.resolve("io.bfq.weight"), low ? "default 10\n" : "default 136\n");
    read +=
        writeAndRead(
            podDir.resolve("io.max"),
            low ? "254:0 wbps=20971520\n" : "254:0 rbps=max wbps=max riops=max wiops=max\n");
    return read;
  }

  private int writeAndRead(Path file, String line) throws IOException {
    try (FileChannel out =
        FileChannel.open(
            file,
            StandardOpenOption.WRITE,
            StandardOpenOption.TRUNCATE_EXISTING,
            LinkOption.NOFOLLOW_LINKS)) {
      out.write(ByteBuffer.wrap(line.getBytes(StandardCharsets.US_ASCII)));
    }
    int total = 0;
    try (FileChannel in =
        FileChannel.open(file, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
      int n;
      readBack.clear();
      while ((n = in.read(readBack)) >= 0) {
        total += n;
        readBack.clear();
      }
    }
    return total;
  }
}
