package dev.ioqos.metrics;

import dev.ioqos.cgroup.CgroupDir;
import dev.ioqos.cgroup.CgroupFiles;
import dev.ioqos.cgroup.CgroupIoException;
import dev.ioqos.cgroup.CgroupTree;
import dev.ioqos.cgroup.IoFile;
import dev.ioqos.core.DeviceId;
import dev.ioqos.core.IoPressure;
import dev.ioqos.core.IoStat;
import dev.ioqos.core.IoStatEntry;
import dev.ioqos.core.KernelFormatException;
import dev.ioqos.core.PressureLine;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.BaseUnits;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import java.util.function.ToLongFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Per-pod meters of the pods the agent manages: io.stat counters per disk and io.pressure totals,
 * which mirror the kernel's cumulative values (so they are monotonic across agent restarts as far
 * as the kernel's are), the values ioqos applied as gauges, and whether the tier is in force.
 *
 * <p>Cheap by construction: only the pods the agent was told about are read (no directory walk),
 * with plain reads (no fork), and each pod's io.stat and io.pressure are read at most once per
 * {@code maxAge}; that one snapshot serves every counter of the pod in a scrape. State is bounded
 * by pods x disks of this node, and a pod's meters go when it is forgotten.
 */
public final class PodIoMetrics implements MeterBinder {
  private static final Logger LOG = LoggerFactory.getLogger(PodIoMetrics.class);

  /**
   * Scrapes within this share one read of each pod's files (e.g. the two Prometheus servers of an
   * HA pair). Below the shortest sensible scrape interval (1 s), so that such a scrape always reads
   * afresh instead of getting the previous scrape's values every other time.
   */
  public static final Duration DEFAULT_MAX_AGE = Duration.ofMillis(500);

  static final String READ_BYTES = "ioqos.pod.io.read.bytes";
  static final String WRITTEN_BYTES = "ioqos.pod.io.written.bytes";
  static final String READS = "ioqos.pod.io.reads";
  static final String WRITES = "ioqos.pod.io.writes";
  static final String DISCARDED_BYTES = "ioqos.pod.io.discarded.bytes";
  static final String DISCARDS = "ioqos.pod.io.discards";
  static final String PRESSURE_WAITING = "ioqos.pod.io.pressure.waiting";
  static final String PRESSURE_STALLED = "ioqos.pod.io.pressure.stalled";
  static final String WEIGHT = "ioqos.pod.io.weight";
  static final String MAX_BYTES = "ioqos.pod.io.max.bytes.per.second";
  static final String MAX_IOPS = "ioqos.pod.io.max.iops";
  static final String TIER_APPLIED = "ioqos.pod.tier.applied";

  private final CgroupFiles files;
  private final Supplier<Optional<CgroupTree>> tree;
  private final Function<DeviceId, String> deviceNames;
  private final Function<String, AppliedValues> applied;
  private final BooleanSupplier psi;
  private final long maxAgeNanos;
  private final LongSupplier nanoClock;
  private final Map<String, TrackedPod> pods = new ConcurrentHashMap<>();
  private volatile MeterRegistry registry;

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
      Function<String, AppliedValues> applied,
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

  @Override
  public void bindTo(MeterRegistry registry) {
    this.registry = registry;
    pods.values().forEach(TrackedPod::registerApplied);
  }

  /**
   * Says that a pod is managed with {@code tier}: its files are read from now on and its applied
   * values (looked up now, after the write) become gauges. A changed identity (tier, name,
   * namespace, cgroup) replaces the pod's series.
   */
  public void managed(
      String uid, String namespace, String name, String tier, String cgroupPath, TierState state) {
    TrackedPod wanted = new TrackedPod(uid, namespace, name, tier, cgroupPath);
    TrackedPod current =
        pods.compute(
            uid,
            (key, old) -> {
              if (old != null && old.sameIdentity(wanted)) {
                return old;
              }
              if (old != null) {
                old.remove();
              }
              return wanted;
            });
    current.update(state, applied.apply(uid));
  }

  /** Forgets a pod: its series vanish from the next scrape. */
  public void forget(String uid) {
    TrackedPod pod = pods.remove(uid);
    if (pod != null) {
      pod.remove();
    }
  }

  /** The UIDs of the pods with series. */
  public Set<String> tracked() {
    return Set.copyOf(pods.keySet());
  }

  /**
   * Reads each pod's files (unless read within {@code maxAge}) and creates the meters of disks and
   * pressure that appeared. Called before each scrape so that a new disk shows in that scrape.
   */
  public void refresh() {
    for (TrackedPod pod : pods.values()) {
      pod.refresh();
    }
  }

  /** One read of a pod's files: io.stat by device (every device seen so far) and io.pressure. */
  private record Sample(
      long readAtNanos, boolean read, Map<DeviceId, IoStatEntry> devices, IoPressure pressure) {
    static final Sample NONE = new Sample(0, false, Map.of(), null);

    boolean freshAt(long now, long maxAgeNanos) {
      return read && now - readAtNanos < maxAgeNanos;
    }
  }

  /** One managed pod: where its files are, its latest sample and the meters made from it. */
  private final class TrackedPod {
    private final String uid;
    private final String namespace;
    private final String name;
    private final String tier;
    private final String cgroupPath;
    private final Tags tags;
    private volatile Sample sample = Sample.NONE;
    // Guarded by this:
    private CgroupDir dir;
    private boolean removed;
    private final Map<DeviceId, List<Meter>> deviceMeters = new HashMap<>();
    private final List<Meter> pressureMeters = new ArrayList<>();
    private final List<Meter> appliedMeters = new ArrayList<>();
    private TierState state;
    private AppliedValues values;
    private boolean appliedRegistered;

    TrackedPod(String uid, String namespace, String name, String tier, String cgroupPath) {
      this.uid = uid;
      this.namespace = namespace;
      this.name = name;
      this.tier = tier;
      this.cgroupPath = cgroupPath;
      this.tags = Tags.of("namespace", namespace, "pod", name, "tier", tier);
    }

    boolean sameIdentity(TrackedPod other) {
      return namespace.equals(other.namespace)
          && name.equals(other.name)
          && tier.equals(other.tier)
          && cgroupPath.equals(other.cgroupPath);
    }

    synchronized void update(TierState newState, AppliedValues newValues) {
      AppliedValues held = newValues == null ? AppliedValues.NONE : newValues;
      if (removed || (appliedRegistered && newState == state && held.equals(values))) {
        return;
      }
      state = newState;
      values = held;
      unregister(appliedMeters);
      appliedMeters.clear();
      appliedRegistered = false;
      registerApplied();
    }

    synchronized void registerApplied() {
      MeterRegistry meters = registry;
      if (meters == null || removed || state == null || appliedRegistered) {
        return;
      }
      appliedRegistered = true;
      if (state != TierState.DRY_RUN) {
        double inForce = state == TierState.APPLIED ? 1 : 0;
        appliedMeters.add(
            Gauge.builder(TIER_APPLIED, () -> inForce)
                .strongReference(true)
                .description(
                    "1 when every value of the pod's tier was written and read back, 0 when the"
                        + " kernel refused or changed one (see the pod's ApplyFailed Event)")
                .tags(tags)
                .register(meters));
      }
      weightGauge(meters, "io.weight", values.ioWeight());
      weightGauge(meters, "io.bfq.weight", values.bfqWeight());
      values
          .limits()
          .forEach(
              (device, keys) -> {
                Tags deviceTags = deviceTags(DeviceId.parse(device));
                limitGauge(meters, MAX_BYTES, deviceTags, "read", keys.get("rbps"));
                limitGauge(meters, MAX_BYTES, deviceTags, "write", keys.get("wbps"));
                limitGauge(meters, MAX_IOPS, deviceTags, "read", keys.get("riops"));
                limitGauge(meters, MAX_IOPS, deviceTags, "write", keys.get("wiops"));
              });
    }

    private void weightGauge(MeterRegistry meters, String file, Integer weight) {
      if (weight == null) {
        return;
      }
      double value = weight;
      appliedMeters.add(
          Gauge.builder(WEIGHT, () -> value)
              .strongReference(true)
              .description(
                  "The default weight ioqos wrote into the pod's io.weight (1..10000, iocost) or"
                      + " io.bfq.weight (1..1000, bfq), as read back")
              .tags(tags)
              .tag("file", file)
              .register(meters));
    }

    private void limitGauge(
        MeterRegistry meters, String meterName, Tags deviceTags, String direction, Long limit) {
      if (limit == null) {
        return; // max: no limit, no series
      }
      boolean bytes = meterName.equals(MAX_BYTES);
      double value = limit;
      appliedMeters.add(
          Gauge.builder(meterName, () -> value)
              .strongReference(true)
              .description(
                  bytes
                      ? "The io.max byte rate limit ioqos wrote for the pod on the disk (rbps, wbps);"
                          + " absent means max"
                      : "The io.max I/O operations per second limit ioqos wrote for the pod on the"
                          + " disk (riops, wiops); absent means max")
              .baseUnit(bytes ? "bytes_per_second" : "iops")
              .tags(deviceTags)
              .tag("direction", direction)
              .register(meters));
    }

    private Tags deviceTags(DeviceId device) {
      return tags.and("device", device.toString(), "device_name", deviceNames.apply(device));
    }

    /** The latest sample, reading the files first when it is older than {@code maxAge}. */
    Sample sample() {
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
        current = read(current, now);
        sample = current;
        return current;
      }
    }

    /** Reads io.stat and io.pressure once; a failed read keeps the previous values. */
    private Sample read(Sample previous, long now) {
      Map<DeviceId, IoStatEntry> devices = previous.devices();
      IoPressure pressure = previous.pressure();
      CgroupDir cgroup = dir();
      if (cgroup != null) {
        try {
          devices = merge(devices, IoStat.parse(files.read(cgroup, IoFile.IO_STAT)));
        } catch (CgroupIoException | KernelFormatException e) {
          LOG.debug("pod {}/{}: io.stat not read: {}", namespace, name, e.getMessage());
        }
        if (psi.getAsBoolean()) {
          try {
            pressure = IoPressure.parse(files.read(cgroup, IoFile.IO_PRESSURE));
          } catch (CgroupIoException | KernelFormatException e) {
            LOG.debug("pod {}/{}: io.pressure not read: {}", namespace, name, e.getMessage());
          }
        }
      }
      return new Sample(now, true, devices, pressure);
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

    void refresh() {
      Sample current = sample();
      synchronized (this) {
        MeterRegistry meters = registry;
        if (meters == null || removed) {
          return;
        }
        for (DeviceId device : current.devices().keySet()) {
          if (!deviceMeters.containsKey(device)) {
            deviceMeters.put(device, deviceCounters(meters, device));
          }
        }
        if (current.pressure() != null && pressureMeters.isEmpty()) {
          pressureMeters.add(
              pressureCounter(
                  meters,
                  PRESSURE_WAITING,
                  "Time at least one task of the pod waited on I/O (io.pressure some total)",
                  p -> p.some()));
          if (current.pressure().full().isPresent()) {
            pressureMeters.add(
                pressureCounter(
                    meters,
                    PRESSURE_STALLED,
                    "Time all non-idle tasks of the pod were stalled on I/O at once (io.pressure"
                        + " full total)",
                    p -> p.full().orElse(null)));
          }
        }
      }
    }

    private List<Meter> deviceCounters(MeterRegistry meters, DeviceId device) {
      Tags deviceTags = deviceTags(device);
      return List.of(
          statCounter(
              meters,
              READ_BYTES,
              BaseUnits.BYTES,
              "Bytes the pod read from the disk (io.stat rbytes)",
              deviceTags,
              device,
              IoStatEntry::rbytes),
          statCounter(
              meters,
              WRITTEN_BYTES,
              BaseUnits.BYTES,
              "Bytes the pod wrote to the disk (io.stat wbytes)",
              deviceTags,
              device,
              IoStatEntry::wbytes),
          statCounter(
              meters,
              READS,
              "reads",
              "Read operations the pod completed on the disk (io.stat rios)",
              deviceTags,
              device,
              IoStatEntry::rios),
          statCounter(
              meters,
              WRITES,
              "writes",
              "Write operations the pod completed on the disk (io.stat wios)",
              deviceTags,
              device,
              IoStatEntry::wios),
          statCounter(
              meters,
              DISCARDED_BYTES,
              BaseUnits.BYTES,
              "Bytes the pod discarded on the disk (io.stat dbytes)",
              deviceTags,
              device,
              IoStatEntry::dbytes),
          statCounter(
              meters,
              DISCARDS,
              "discards",
              "Discard operations the pod completed on the disk (io.stat dios)",
              deviceTags,
              device,
              IoStatEntry::dios));
    }

    private Meter statCounter(
        MeterRegistry meters,
        String meterName,
        String unit,
        String description,
        Tags deviceTags,
        DeviceId device,
        ToLongFunction<IoStatEntry> field) {
      return FunctionCounter.builder(
              meterName,
              this,
              pod -> {
                IoStatEntry entry = pod.sample().devices().get(device);
                return entry == null ? 0 : field.applyAsLong(entry);
              })
          .description(description + ", as the kernel counts it since the cgroup was created")
          .baseUnit(unit)
          .tags(deviceTags)
          .register(meters);
    }

    private Meter pressureCounter(
        MeterRegistry meters,
        String meterName,
        String description,
        Function<IoPressure, PressureLine> line) {
      return FunctionCounter.builder(
              meterName,
              this,
              pod -> {
                IoPressure pressure = pod.sample().pressure();
                PressureLine selected = pressure == null ? null : line.apply(pressure);
                return selected == null ? 0 : selected.totalSeconds();
              })
          .description(description + ", as the kernel counts it since the cgroup was created")
          .baseUnit("seconds")
          .tags(tags)
          .register(meters);
    }

    synchronized void remove() {
      removed = true;
      deviceMeters.values().forEach(this::unregister);
      deviceMeters.clear();
      unregister(pressureMeters);
      pressureMeters.clear();
      unregister(appliedMeters);
      appliedMeters.clear();
    }

    private void unregister(List<Meter> list) {
      MeterRegistry meters = registry;
      if (meters != null) {
        list.forEach(meters::remove);
      }
    }

    @Override
    public String toString() {
      return namespace + "/" + name + " (" + uid + ")";
    }
  }

  /**
   * The devices of a new read, plus any device an earlier read had and this one lacks: a counter
   * never goes back to zero because a line was missing once.
   */
  static Map<DeviceId, IoStatEntry> merge(
      Map<DeviceId, IoStatEntry> previous, SortedMap<DeviceId, IoStatEntry> latest) {
    if (latest.keySet().containsAll(previous.keySet())) {
      return latest;
    }
    Map<DeviceId, IoStatEntry> merged = new TreeMap<>(previous);
    merged.putAll(latest);
    return merged;
  }
}
