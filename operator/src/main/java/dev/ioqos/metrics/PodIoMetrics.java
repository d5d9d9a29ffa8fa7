package dev.ioqos.metrics;

import dev.ioqos.cgroup.CgroupDir;
import dev.ioqos.cgroup.CgroupFiles;
import dev.ioqos.cgroup.CgroupIoException;
import dev.ioqos.cgroup.CgroupTree;
import dev.ioqos.cgroup.HeldFile;
import dev.ioqos.cgroup.IoFile;
import dev.ioqos.cgroup.ReadBuffer;
import dev.ioqos.core.DeviceId;
import dev.ioqos.core.IoPressure;
import dev.ioqos.core.IoPressureScan;
import dev.ioqos.core.IoSettings;
import dev.ioqos.core.IoStat;
import dev.ioqos.core.IoStatScan;
import dev.ioqos.core.KernelFormatException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Per-pod series of the pods the agent manages: io.stat counters per disk and io.pressure totals,
 * which mirror the kernel's cumulative values (so they are monotonic across agent restarts as far
 * as the kernel's are), the values ioqos applied as gauges, and whether the tier is in force.
 *
 * <p>Cheap by construction: only the pods the agent was told about are read (no directory walk),
 * with plain reads (no fork), and each pod's io.stat and io.pressure are read at most once per
 * {@code maxAge}; that one snapshot serves every series of the pod in a scrape. The two files stay
 * open from scrape to scrape ({@link HeldFile}: one {@code pread(2)} each, no open and close), so
 * the agent holds two descriptors per managed pod. State is bounded by pods x disks of this node,
 * and a pod's series and descriptors go when it is forgotten.
 *
 * <p>These are the bulk of a scrape (18 series per pod with two disks), so they bypass the meter
 * registry: the files are scanned as bytes ({@link IoStatScan}, {@link IoPressureScan}), each pod
 * keeps its label sets and its applied values as ready text, and {@link #render} writes the
 * families straight into the scrape's buffer, in Micrometer's Prometheus registry's names, types,
 * help texts, label order and number format.
 */
public final class PodIoMetrics {
  private static final Logger LOG = LoggerFactory.getLogger(PodIoMetrics.class);

  /**
   * Scrapes within this share one read of each pod's files (e.g. the two Prometheus servers of an
   * HA pair). Below the shortest sensible scrape interval (1 s), so that such a scrape always reads
   * afresh instead of getting the previous scrape's values every other time.
   */
  public static final Duration DEFAULT_MAX_AGE = Duration.ofMillis(500);

  private static final String SINCE_CREATED =
      ", as the kernel counts it since the cgroup was created";

  static final Family READ_BYTES =
      Family.counter(
          "ioqos_pod_io_read_bytes_total",
          "Bytes the pod read from the disk (io.stat rbytes)" + SINCE_CREATED);
  static final Family WRITTEN_BYTES =
      Family.counter(
          "ioqos_pod_io_written_bytes_total",
          "Bytes the pod wrote to the disk (io.stat wbytes)" + SINCE_CREATED);
  static final Family READS =
      Family.counter(
          "ioqos_pod_io_reads_total",
          "Read operations the pod completed on the disk (io.stat rios)" + SINCE_CREATED);
  static final Family WRITES =
      Family.counter(
          "ioqos_pod_io_writes_total",
          "Write operations the pod completed on the disk (io.stat wios)" + SINCE_CREATED);
  static final Family DISCARDED_BYTES =
      Family.counter(
          "ioqos_pod_io_discarded_bytes_total",
          "Bytes the pod discarded on the disk (io.stat dbytes)" + SINCE_CREATED);
  static final Family DISCARDS =
      Family.counter(
          "ioqos_pod_io_discards_total",
          "Discard operations the pod completed on the disk (io.stat dios)" + SINCE_CREATED);
  static final Family PRESSURE_WAITING =
      Family.counter(
          "ioqos_pod_io_pressure_waiting_seconds_total",
          "Time at least one task of the pod waited on I/O (io.pressure some total)"
              + SINCE_CREATED);
  static final Family PRESSURE_STALLED =
      Family.counter(
          "ioqos_pod_io_pressure_stalled_seconds_total",
          "Time all non-idle tasks of the pod were stalled on I/O at once (io.pressure full total)"
              + SINCE_CREATED);
  static final Family WEIGHT =
      Family.gauge(
          "ioqos_pod_io_weight",
          "The default weight ioqos wrote into the pod's io.weight (1..10000, iocost) or"
              + " io.bfq.weight (1..1000, bfq), as read back");
  static final Family MAX_BYTES =
      Family.gauge(
          "ioqos_pod_io_max_bytes_per_second",
          "The io.max byte rate limit ioqos wrote for the pod on the disk (rbps, wbps);"
              + " absent means max");
  static final Family MAX_IOPS =
      Family.gauge(
          "ioqos_pod_io_max_iops",
          "The io.max I/O operations per second limit ioqos wrote for the pod on the disk (riops,"
              + " wiops); absent means max");
  static final Family TARGET_DISK =
      Family.gauge(
          "ioqos_pod_target_disk_info",
          "1 for each whole disk the pod's tier is written to when its policy targets the pod's own"
              + " volumes (devices: podVolumes)");
  static final Family TIER_APPLIED =
      Family.gauge(
          "ioqos_pod_tier_applied",
          "1 when every value of the pod's tier was written and read back, 0 when the kernel"
              + " refused or changed one (see the pod's ApplyFailed Event)");

  /** The io.stat families by {@link IoStatScan} field. */
  private static final Family[] STAT = new Family[IoStatScan.FIELDS];

  static {
    STAT[IoStatScan.RBYTES] = READ_BYTES;
    STAT[IoStatScan.WBYTES] = WRITTEN_BYTES;
    STAT[IoStatScan.RIOS] = READS;
    STAT[IoStatScan.WIOS] = WRITES;
    STAT[IoStatScan.DBYTES] = DISCARDED_BYTES;
    STAT[IoStatScan.DIOS] = DISCARDS;
  }

  /** The applied-value families, indexes into {@link TrackedPod#applied}. */
  private static final Family[] APPLIED = {WEIGHT, MAX_BYTES, MAX_IOPS, TIER_APPLIED, TARGET_DISK};

  private static final int APPLIED_WEIGHT = 0;
  private static final int APPLIED_MAX_BYTES = 1;
  private static final int APPLIED_MAX_IOPS = 2;
  private static final int APPLIED_TIER = 3;
  private static final int APPLIED_DISKS = 4;

  private static final byte[] NEWLINE = {'\n'};
  private static final TrackedPod[] NO_PODS = new TrackedPod[0];

  private final CgroupFiles files;
  private final Supplier<Optional<CgroupTree>> tree;
  private final Function<DeviceId, String> deviceNames;
  private final Function<String, IoSettings> applied;
  private final BooleanSupplier psi;
  private final long maxAgeNanos;
  private final LongSupplier nanoClock;
  private final Map<String, TrackedPod> pods = new ConcurrentHashMap<>();
  // Readers (a direct read buffer and scanners each) of earlier refreshes, reused by the next
  // ones: as many as threads ever read at once.
  private final Queue<Reader> spareReaders = new ConcurrentLinkedQueue<>();

  /**
   * @param files reads cgroup files without following symlinks
   * @param tree the guarded kubepods tree, when the node has one
   * @param deviceNames names a device for the {@code device_name} label
   * @param applied what the ledger says the kernel holds for a pod UID
   * @param psi whether the kernel has PSI (io.pressure is read only then)
   * @param maxAge how old a pod's snapshot may be before a scrape reads its files again
   * @param nanoClock {@link System#nanoTime()} outside tests and benchmarks
   */
  public PodIoMetrics(
      CgroupFiles files,
      Supplier<Optional<CgroupTree>> tree,
      Function<DeviceId, String> deviceNames,
      Function<String, IoSettings> applied,
      BooleanSupplier psi,
      Duration maxAge,
      LongSupplier nanoClock) {
    this.files = Objects.requireNonNull(files, "files");
    this.tree = Objects.requireNonNull(tree, "tree");
    this.deviceNames = Objects.requireNonNull(deviceNames, "deviceNames");
    this.applied = Objects.requireNonNull(applied, "applied");
    this.psi = Objects.requireNonNull(psi, "psi");
    this.maxAgeNanos = maxAge.toNanos();
    this.nanoClock = Objects.requireNonNull(nanoClock, "nanoClock");
  }

  /**
   * Says that a pod is managed with {@code tier}: its files are read from now on and its applied
   * values (looked up now, after the write) become gauges. A changed identity (tier, name,
   * namespace, cgroup) replaces the pod's series.
   */
  public void managed(
      String uid, String namespace, String name, String tier, String cgroupPath, TierState state) {
    managed(uid, namespace, name, tier, cgroupPath, state, List.of());
  }

  /**
   * As {@link #managed(String, String, String, String, String, TierState)}, for a pod whose policy
   * targets its own volumes: {@code disks} are the disks its tier is written to, one {@code
   * ioqos_pod_target_disk_info} series each.
   */
  public void managed(
      String uid,
      String namespace,
      String name,
      String tier,
      String cgroupPath,
      TierState state,
      List<DeviceId> disks) {
    TrackedPod wanted = new TrackedPod(namespace, name, tier, cgroupPath);
    TrackedPod[] replaced = new TrackedPod[1];
    TrackedPod current =
        pods.compute(
            uid,
            (key, old) -> {
              if (old != null && old.sameIdentity(wanted)) {
                return old;
              }
              replaced[0] = old;
              return wanted;
            });
    if (replaced[0] != null) {
      replaced[0].close();
    }
    current.update(state, applied.apply(uid), disks);
  }

  /** Forgets a pod: its series vanish from the next scrape and its files are closed. */
  public void forget(String uid) {
    TrackedPod gone = pods.remove(uid);
    if (gone != null) {
      gone.close();
    }
  }

  /** Forgets every pod (the agent stops). */
  public void close() {
    for (String uid : pods.keySet()) {
      forget(uid);
    }
  }

  /** How many pod files are open now, kept for the next scrape (for tests). */
  int openFiles() {
    int open = 0;
    for (TrackedPod pod : pods.values()) {
      open += pod.openFiles();
    }
    return open;
  }

  /** The UIDs of the pods with series. */
  public Set<String> tracked() {
    return Set.copyOf(pods.keySet());
  }

  /**
   * Reads each pod's files unless read within {@code maxAge}. Called before each scrape so that a
   * new disk shows in that scrape.
   */
  public void refresh() {
    refreshing().help();
  }

  /**
   * A refresh that several threads can share: each {@link Refresh#help} reads pods that no other
   * thread has taken yet, until none is left.
   */
  public Refresh refreshing() {
    return new Refresh(pods.values().toArray(NO_PODS));
  }

  /** One read of every tracked pod's files, shared by the threads that help with it. */
  public final class Refresh {
    private final TrackedPod[] tracked;
    private final AtomicInteger next = new AtomicInteger();
    private final AtomicInteger done = new AtomicInteger();
    private final long startedAt = System.nanoTime();
    private volatile long finishedAt;

    private Refresh(TrackedPod[] tracked) {
      this.tracked = tracked;
      if (tracked.length == 0) {
        finishedAt = startedAt;
      }
    }

    /**
     * Reads the pods no other thread took yet, one at a time, and returns when none is left to take
     * (another thread may still be reading its last one).
     */
    public void help() {
      Reader reader = spareReaders.poll();
      if (reader == null) {
        reader = new Reader();
      }
      try {
        for (int i = next.getAndIncrement(); i < tracked.length; i = next.getAndIncrement()) {
          try {
            tracked[i].sample(reader);
          } finally {
            if (done.incrementAndGet() == tracked.length) {
              finishedAt = System.nanoTime();
            }
          }
        }
      } finally {
        spareReaders.offer(reader);
      }
    }

    /** Wall time from the start until the last pod was read; 0 while a pod is still being read. */
    public long nanos() {
      long finished = finishedAt;
      return finished == 0 ? 0 : finished - startedAt;
    }
  }

  /** The text of every pod's series, as of the last {@link #refresh}. */
  public String render() {
    Exposition out = new Exposition(4096);
    render(out);
    return out.toString();
  }

  /**
   * Writes every pod's series, family by family (the text format wants a family's samples
   * together): each family's HELP and TYPE once, and only when it has a sample.
   */
  void render(Exposition out) {
    TrackedPod[] tracked = pods.values().toArray(NO_PODS);
    Sample[] samples = new Sample[tracked.length];
    byte[][][] appliedLines = new byte[tracked.length][][];
    for (int i = 0; i < tracked.length; i++) {
      samples[i] = tracked[i].sample;
      appliedLines[i] = tracked[i].applied;
    }
    // Families in name order, as the meter registry writes them.
    stat(out, IoStatScan.DBYTES, samples);
    stat(out, IoStatScan.DIOS, samples);
    applied(out, APPLIED_MAX_BYTES, appliedLines);
    applied(out, APPLIED_MAX_IOPS, appliedLines);
    pressure(out, PRESSURE_STALLED, tracked, samples);
    pressure(out, PRESSURE_WAITING, tracked, samples);
    stat(out, IoStatScan.RBYTES, samples);
    stat(out, IoStatScan.RIOS, samples);
    applied(out, APPLIED_WEIGHT, appliedLines);
    stat(out, IoStatScan.WIOS, samples);
    stat(out, IoStatScan.WBYTES, samples);
    applied(out, APPLIED_DISKS, appliedLines);
    applied(out, APPLIED_TIER, appliedLines);
  }

  private static void stat(Exposition out, int field, Sample[] samples) {
    Family family = STAT[field];
    boolean any = false;
    for (Sample sample : samples) {
      byte[][] labels = sample.labels;
      long[] counters = sample.counters;
      for (int d = 0; d < labels.length; d++) {
        if (!any) {
          out.append(family.header);
          any = true;
        }
        out.sample(family.name, labels[d], counters[d * IoStatScan.FIELDS + field]);
      }
    }
  }

  private static void pressure(
      Exposition out, Family family, TrackedPod[] tracked, Sample[] samples) {
    boolean waiting = family == PRESSURE_WAITING;
    boolean any = false;
    for (int i = 0; i < samples.length; i++) {
      Sample sample = samples[i];
      if (!sample.pressure || (!waiting && !sample.full)) {
        continue;
      }
      if (!any) {
        out.append(family.header);
        any = true;
      }
      long micros = waiting ? sample.someMicros : sample.fullMicros;
      out.append(family.name).append(tracked[i].seriesLabels).value(micros / 1_000_000.0);
      out.append(NEWLINE);
    }
  }

  private static void applied(Exposition out, int index, byte[][][] appliedLines) {
    boolean any = false;
    for (byte[][] lines : appliedLines) {
      byte[] text = lines[index];
      if (text.length == 0) {
        continue;
      }
      if (!any) {
        out.append(APPLIED[index].header);
        any = true;
      }
      out.append(text);
    }
  }

  /** One family of series: its name, the name followed by '{', and its HELP and TYPE lines. */
  record Family(String metric, byte[] name, byte[] header) {
    static Family counter(String name, String help) {
      return of(name, help, "counter");
    }

    static Family gauge(String name, String help) {
      return of(name, help, "gauge");
    }

    private static Family of(String name, String help, String type) {
      return new Family(
          name,
          Exposition.ascii(name + "{"),
          Exposition.utf8("# HELP " + name + " " + help + "\n# TYPE " + name + " " + type + "\n"));
    }
  }

  /** The reusable state of one refresh: a read buffer and the two scanners. */
  private static final class Reader {
    final ReadBuffer buffer = new ReadBuffer(1024);
    final IoStatScan stat = new IoStatScan();
    final IoPressureScan pressure = new IoPressureScan();
  }

  /**
   * One read of a pod's files: every device seen so far (sorted, with its series labels and six
   * counters) and the pressure totals. Immutable once published.
   */
  private static final class Sample {
    static final Sample NONE =
        new Sample(0, false, new DeviceId[0], new byte[0][], new long[0], false, 0, false, 0);

    final long readAtNanos;
    final boolean read;
    final DeviceId[] devices;
    final byte[][] labels;
    final long[] counters;
    final boolean pressure;
    final long someMicros;
    final boolean full;
    final long fullMicros;

    Sample(
        long readAtNanos,
        boolean read,
        DeviceId[] devices,
        byte[][] labels,
        long[] counters,
        boolean pressure,
        long someMicros,
        boolean full,
        long fullMicros) {
      this.readAtNanos = readAtNanos;
      this.read = read;
      this.devices = devices;
      this.labels = labels;
      this.counters = counters;
      this.pressure = pressure;
      this.someMicros = someMicros;
      this.full = full;
      this.fullMicros = fullMicros;
    }

    boolean freshAt(long now, long maxAgeNanos) {
      return read && now - readAtNanos < maxAgeNanos;
    }
  }

  /** One managed pod: where its files are, its latest sample and its series' text. */
  private final class TrackedPod {
    private final String namespace;
    private final String name;
    private final String tier;
    private final String cgroupPath;

    /** {@code namespace="..",pod="..",tier=".."}. */
    private final String podLabels;

    /** {@code namespace="..",pod="..",tier=".."} }: the labels of the pod's own series, closed. */
    final byte[] seriesLabels;

    volatile Sample sample = Sample.NONE;

    /** The lines of each applied-value family for this pod, empty when none. */
    volatile byte[][] applied = {new byte[0], new byte[0], new byte[0], new byte[0], new byte[0]};

    // Guarded by this:
    private CgroupDir dir;
    // The pod's io.stat and io.pressure, kept open from scrape to scrape once the cgroup is found.
    private HeldFile statFile;
    private HeldFile pressureFile;
    private boolean closed;
    private TierState state;
    private IoSettings values;
    private List<DeviceId> disks;

    TrackedPod(String namespace, String name, String tier, String cgroupPath) {
      this.namespace = namespace;
      this.name = name;
      this.tier = tier;
      this.cgroupPath = cgroupPath;
      this.podLabels =
          label("namespace", namespace) + "," + label("pod", name) + "," + label("tier", tier);
      this.seriesLabels = Exposition.utf8(podLabels + "} ");
    }

    boolean sameIdentity(TrackedPod other) {
      return namespace.equals(other.namespace)
          && name.equals(other.name)
          && tier.equals(other.tier)
          && cgroupPath.equals(other.cgroupPath);
    }

    synchronized void update(TierState newState, IoSettings newValues, List<DeviceId> newDisks) {
      IoSettings held = newValues == null ? IoSettings.NONE : newValues;
      if (newState == state && held.equals(values) && newDisks.equals(disks)) {
        return;
      }
      state = newState;
      values = held;
      disks = List.copyOf(newDisks);
      StringBuilder[] lines = new StringBuilder[APPLIED.length];
      for (int i = 0; i < lines.length; i++) {
        lines[i] = new StringBuilder();
      }
      if (state != TierState.DRY_RUN) {
        line(lines[APPLIED_TIER], TIER_APPLIED, podLabels, state == TierState.APPLIED ? 1 : 0);
      }
      weight(lines[APPLIED_WEIGHT], "io.weight", held.ioWeight());
      weight(lines[APPLIED_WEIGHT], "io.bfq.weight", held.bfqWeight());
      held.limits()
          .forEach(
              (device, limits) -> {
                String deviceLabels = deviceLabels(device);
                limit(lines[APPLIED_MAX_BYTES], MAX_BYTES, deviceLabels, "read", limits.rbps());
                limit(lines[APPLIED_MAX_BYTES], MAX_BYTES, deviceLabels, "write", limits.wbps());
                limit(lines[APPLIED_MAX_IOPS], MAX_IOPS, deviceLabels, "read", limits.riops());
                limit(lines[APPLIED_MAX_IOPS], MAX_IOPS, deviceLabels, "write", limits.wiops());
              });
      disks.stream()
          .sorted()
          .forEach(d -> line(lines[APPLIED_DISKS], TARGET_DISK, deviceLabels(d) + podLabels, 1));
      byte[][] text = new byte[APPLIED.length][];
      for (int i = 0; i < text.length; i++) {
        text[i] = Exposition.utf8(lines[i].toString());
      }
      applied = text;
    }

    private void weight(StringBuilder out, String file, OptionalInt weight) {
      if (weight.isPresent()) {
        line(out, WEIGHT, label("file", file) + "," + podLabels, weight.getAsInt());
      }
    }

    private void limit(
        StringBuilder out,
        Family family,
        String deviceLabels,
        String direction,
        OptionalLong limit) {
      if (limit.isPresent()) { // max: no limit, no series
        line(
            out,
            family,
            deviceLabels + label("direction", direction) + "," + podLabels,
            limit.getAsLong());
      }
    }

    private void line(StringBuilder out, Family family, String labels, double value) {
      out.append(family.metric())
          .append('{')
          .append(labels)
          .append("} ")
          .append(Double.toString(value))
          .append('\n');
    }

    /** {@code device="..",device_name="..",}: the labels a disk adds, before the pod's. */
    private String deviceLabels(DeviceId device) {
      return label("device", device.toString())
          + ","
          + label("device_name", deviceNames.apply(device))
          + ",";
    }

    /** The latest sample, reading the files first when it is older than {@code maxAge}. */
    Sample sample(Reader reader) {
      long now = nanoClock.getAsLong();
      Sample current = sample;
      if (current.freshAt(now, maxAgeNanos)) {
        return current;
      }
      synchronized (this) {
        current = sample;
        if (current.freshAt(now, maxAgeNanos)) {
          return current;
        }
        current = read(current, now, reader);
        sample = current;
        return current;
      }
    }

    /** Reads io.stat and io.pressure once; a failed read keeps the previous values. */
    private Sample read(Sample previous, long now, Reader reader) {
      DeviceId[] devices = previous.devices;
      byte[][] labels = previous.labels;
      long[] counters = previous.counters;
      boolean pressure = previous.pressure;
      long someMicros = previous.someMicros;
      boolean full = previous.full;
      long fullMicros = previous.fullMicros;
      CgroupDir cgroup = closed ? null : dir();
      if (cgroup != null) {
        if (statFile == null) {
          statFile = new HeldFile(cgroup, IoFile.IO_STAT);
          pressureFile = new HeldFile(cgroup, IoFile.IO_PRESSURE);
        }
        try {
          files.read(statFile, reader.buffer);
          IoStatScan stat = reader.stat;
          if (!stat.scan(reader.buffer.bytes(), reader.buffer.length())) {
            stat.load(IoStat.parse(reader.buffer.text()));
          }
          Sample merged = merge(previous, stat);
          devices = merged.devices;
          labels = merged.labels;
          counters = merged.counters;
        } catch (CgroupIoException | KernelFormatException e) {
          LOG.debug("pod {}/{}: io.stat not read: {}", namespace, name, e.getMessage());
        }
        if (psi.getAsBoolean()) {
          try {
            files.read(pressureFile, reader.buffer);
            IoPressureScan scan = reader.pressure;
            if (!scan.scan(reader.buffer.bytes(), reader.buffer.length())) {
              scan.load(IoPressure.parse(reader.buffer.text()));
            }
            pressure = true;
            someMicros = scan.someMicros();
            if (scan.hasFull()) {
              full = true;
              fullMicros = scan.fullMicros();
            }
          } catch (CgroupIoException | KernelFormatException e) {
            LOG.debug("pod {}/{}: io.pressure not read: {}", namespace, name, e.getMessage());
          }
        }
      }
      return new Sample(
          now, true, devices, labels, counters, pressure, someMicros, full, fullMicros);
    }

    /**
     * The devices of a new read, plus any device an earlier read had and this one lacks: a counter
     * never goes back to zero because a line was missing once. Only {@code devices}, {@code labels}
     * and {@code counters} of the result count.
     */
    private Sample merge(Sample previous, IoStatScan stat) {
      DeviceId[] known = previous.devices;
      int found = stat.count();
      int[] slots = new int[found];
      int added = 0;
      for (int s = 0; s < found; s++) {
        slots[s] = indexOf(known, stat.major(s), stat.minor(s));
        if (slots[s] < 0) {
          added++;
        }
      }
      DeviceId[] devices = known;
      byte[][] labels = previous.labels;
      long[] counters = Arrays.copyOf(previous.counters, previous.counters.length);
      if (added > 0) {
        List<DeviceId> all = new ArrayList<>(Arrays.asList(known));
        for (int s = 0; s < found; s++) {
          if (slots[s] < 0) {
            all.add(new DeviceId(stat.major(s), stat.minor(s)));
          }
        }
        all.sort(null);
        devices = all.toArray(new DeviceId[0]);
        labels = new byte[devices.length][];
        counters = new long[devices.length * IoStatScan.FIELDS];
        for (int d = 0; d < devices.length; d++) {
          int old = indexOf(known, devices[d].major(), devices[d].minor());
          if (old >= 0) {
            labels[d] = previous.labels[old];
            System.arraycopy(
                previous.counters,
                old * IoStatScan.FIELDS,
                counters,
                d * IoStatScan.FIELDS,
                IoStatScan.FIELDS);
          } else {
            labels[d] = Exposition.utf8(deviceLabels(devices[d]) + podLabels + "} ");
          }
        }
        for (int s = 0; s < found; s++) {
          slots[s] = indexOf(devices, stat.major(s), stat.minor(s));
        }
      }
      for (int s = 0; s < found; s++) {
        for (int f = 0; f < IoStatScan.FIELDS; f++) {
          counters[slots[s] * IoStatScan.FIELDS + f] = stat.value(s, f);
        }
      }
      return new Sample(0, false, devices, labels, counters, false, 0, false, 0);
    }

    /** Closes the pod's files; it reads nothing more. */
    synchronized void close() {
      closed = true;
      if (statFile != null) {
        statFile.close();
        pressureFile.close();
      }
    }

    synchronized int openFiles() {
      return statFile == null ? 0 : (statFile.open() ? 1 : 0) + (pressureFile.open() ? 1 : 0);
    }

    private CgroupDir dir() {
      if (dir == null) {
        Optional<CgroupTree> kubepods = tree.get();
        if (kubepods.isPresent()) {
          try {
            dir = kubepods.get().below(cgroupPath);
          } catch (CgroupIoException e) {
            // Not created yet or gone; looked up again at the next read.
            LOG.debug("pod {}/{}: {}", namespace, name, e.getMessage());
          }
        }
      }
      return dir;
    }

    @Override
    public String toString() {
      return namespace + "/" + name;
    }
  }

  private static int indexOf(DeviceId[] devices, int major, int minor) {
    for (int i = 0; i < devices.length; i++) {
      if (devices[i].major() == major && devices[i].minor() == minor) {
        return i;
      }
    }
    return -1;
  }

  /** {@code name="value"}, the value escaped. */
  private static String label(String name, String value) {
    return name + "=\"" + Exposition.escape(value) + "\"";
  }
}
