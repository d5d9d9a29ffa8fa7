package dev.ioqos.metrics;

import com.sun.management.UnixOperatingSystemMXBean;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.BaseUnits;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * The agent's open and maximum file descriptors, with the names, help and unit of Micrometer's
 * FileDescriptorMetrics ({@code process_files_open_files}, {@code process_files_max_files}), but
 * the open count taken at most once per {@link #OPEN_COUNT_AGE}. The JDK counts by listing
 * /proc/self/fd, and the agent keeps two files open per managed pod ({@link PodIoMetrics}): at 250
 * pods one count took 0.6 ms of a cold scrape, measured, more than the pods' reads it saved. A
 * descriptor leak grows over minutes; a count up to 10 s old still shows it.
 */
final class ProcessFileMetrics {
  static final Duration OPEN_COUNT_AGE = Duration.ofSeconds(10);

  private final LongSupplier openCount;
  // Guarded by this.
  private final Recount recount;
  private long open;

  /**
   * @param openCount counts the open descriptors (the JDK's listing of /proc/self/fd)
   * @param maxAge how old a count may be when scraped
   * @param nanoClock {@link System#nanoTime()} outside tests
   */
  ProcessFileMetrics(LongSupplier openCount, Duration maxAge, LongSupplier nanoClock) {
    this.openCount = Objects.requireNonNull(openCount, "openCount");
    this.recount = new Recount(maxAge, nanoClock);
  }

  /** Binds both gauges when the JVM can count descriptors (a Unix JVM); nothing otherwise. */
  static void bind(MeterRegistry registry, LongSupplier nanoClock) {
    if (ManagementFactory.getOperatingSystemMXBean() instanceof UnixOperatingSystemMXBean os) {
      new ProcessFileMetrics(os::getOpenFileDescriptorCount, OPEN_COUNT_AGE, nanoClock)
          .bindTo(registry, os::getMaxFileDescriptorCount);
    }
  }

  void bindTo(MeterRegistry registry, LongSupplier maxCount) {
    Gauge.builder("process.files.open", this, ProcessFileMetrics::open)
        .description("The open file descriptor count")
        .baseUnit(BaseUnits.FILES)
        .strongReference(true) // nothing else holds this object
        .register(registry);
    Gauge.builder("process.files.max", maxCount, LongSupplier::getAsLong)
        .description("The maximum file descriptor count")
        .baseUnit(BaseUnits.FILES)
        .strongReference(true)
        .register(registry);
  }

  /** The open descriptors, counted again when the last count is older than the maximum age. */
  synchronized double open() {
    if (recount.due()) {
      open = openCount.getAsLong();
      recount.taken();
    }
    return open;
  }
}
