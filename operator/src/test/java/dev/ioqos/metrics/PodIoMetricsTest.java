package dev.ioqos.metrics;

import static dev.ioqos.metrics.MetricsFixture.FIXTURE_POD;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ioqos.core.DeviceId;
import dev.ioqos.core.IoLimits;
import dev.ioqos.core.IoSettings;
import dev.ioqos.core.QosClass;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.OptionalInt;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PodIoMetricsTest {
  static final String LABELS =
      "device=\"254:0\",device_name=\"vda\",namespace=\"shop\",pod=\"backup\",tier=\"low\"";
  static final String POD_LABELS = "namespace=\"shop\",pod=\"backup\",tier=\"low\"";

  @TempDir Path temp;
  MetricsFixture fixture;
  PodIoMetrics pods;
  String path;

  @BeforeEach
  void setUp() {
    fixture = new MetricsFixture(temp);
    pods = fixture.podMetrics();
    path = MetricsFixture.podPath(FIXTURE_POD, QosClass.BURSTABLE);
  }

  @Test
  void ioStatAndPressureOfAManagedPodAreCountersNamedLikeTheEcosystem() {
    pods.managed(FIXTURE_POD, "shop", "backup", "low", path, TierState.APPLIED);

    String text = fixture.scrape(pods);
    System.out.println(text);

    // The fixture's io.stat: 254:0 rbytes=1048576 wbytes=20971520 rios=256 wios=5120, 254:16 bare.
    assertThat(text)
        .contains("# TYPE ioqos_pod_io_read_bytes_total counter")
        .contains("ioqos_pod_io_read_bytes_total{" + LABELS + "} 1048576")
        .contains("ioqos_pod_io_written_bytes_total{" + LABELS + "} 2.097152E7")
        .contains("ioqos_pod_io_reads_total{" + LABELS + "} 256")
        .contains("ioqos_pod_io_writes_total{" + LABELS + "} 5120")
        .contains("ioqos_pod_io_discarded_bytes_total{" + LABELS + "} 0")
        .contains("ioqos_pod_io_discards_total{" + LABELS + "} 0")
        .contains(
            "ioqos_pod_io_written_bytes_total{device=\"254:16\",device_name=\"vdb\","
                + POD_LABELS
                + "} 0")
        // io.pressure total=4480927 us.
        .contains("ioqos_pod_io_pressure_waiting_seconds_total{" + POD_LABELS + "} 4.480927")
        .contains("ioqos_pod_io_pressure_stalled_seconds_total{" + POD_LABELS + "} 4.480927")
        .contains("ioqos_pod_tier_applied{" + POD_LABELS + "} 1");
  }

  @Test
  void appliedValuesAreGaugesAndUnlimitedKeysHaveNoSeries() {
    fixture.ledger.put(
        FIXTURE_POD,
        new IoSettings(
            OptionalInt.empty(),
            OptionalInt.of(10),
            Map.of(
                DeviceId.parse("254:16"),
                IoLimits.NONE.with(IoLimits.Key.WBPS, 20_971_520L).with(IoLimits.Key.WIOPS, 200L)),
            Map.of()));

    pods.managed(FIXTURE_POD, "shop", "backup", "low", path, TierState.APPLIED);
    String text = fixture.scrape(pods);

    String vdb = "device=\"254:16\",device_name=\"vdb\",direction=\"write\"," + POD_LABELS;
    assertThat(text)
        .contains("ioqos_pod_io_weight{file=\"io.bfq.weight\"," + POD_LABELS + "} 10")
        .doesNotContain("ioqos_pod_io_weight{file=\"io.weight\"")
        .contains("ioqos_pod_io_max_bytes_per_second{" + vdb + "} 2.097152E7")
        .contains("ioqos_pod_io_max_iops{" + vdb + "} 200")
        .doesNotContain("direction=\"read\"");
  }

  @Test
  void countersFollowTheKernelAndANewDiskAppearsInTheNextScrape() {
    pods.managed(FIXTURE_POD, "shop", "backup", "low", path, TierState.APPLIED);
    fixture.scrape(pods);

    Path dir = fixture.podDir(FIXTURE_POD, QosClass.BURSTABLE);
    MetricsFixture.replace(
        dir.resolve("io.stat"),
        "254:0 rbytes=2097152 wbytes=20971520 rios=512 wios=5120 dbytes=0 dios=0\n"
            + "254:16 rbytes=0 wbytes=4096 rios=0 wios=1 dbytes=0 dios=0\n"
            + "7:0 rbytes=512 wbytes=0 rios=1 wios=0 dbytes=0 dios=0\n");
    fixture.advance(Duration.ofSeconds(2));
    String text = fixture.scrape(pods);

    assertThat(text)
        .contains("ioqos_pod_io_read_bytes_total{" + LABELS + "} 2097152")
        .contains(
            "ioqos_pod_io_written_bytes_total{device=\"254:16\",device_name=\"vdb\","
                + POD_LABELS
                + "} 4096")
        // loop0 is not in the probe's disk list: named through sysfs's dev/block link.
        .contains(
            "ioqos_pod_io_read_bytes_total{device=\"7:0\",device_name=\"loop0\","
                + POD_LABELS
                + "} 512");
  }

  @Test
  void aScrapeReadsEachFileOnceAndAScrapeWithinTheSnapshotAgeReadsNothing() {
    pods.managed(FIXTURE_POD, "shop", "backup", "low", path, TierState.APPLIED);
    fixture.files.reads.set(0);

    fixture.advance(Duration.ofSeconds(2));
    fixture.scrape(pods);
    assertThat(fixture.files.reads.get()).as("io.stat and io.pressure, once each").isEqualTo(2);

    fixture.advance(Duration.ofMillis(500));
    fixture.scrape(pods);
    assertThat(fixture.files.reads.get()).as("served from the snapshot").isEqualTo(2);

    fixture.advance(Duration.ofMillis(600));
    fixture.scrape(pods);
    assertThat(fixture.files.reads.get()).isEqualTo(4);
  }

  @Test
  void aLineMissingOnceDoesNotSendACounterBackToZero() {
    pods.managed(FIXTURE_POD, "shop", "backup", "low", path, TierState.APPLIED);
    fixture.scrape(pods);

    MetricsFixture.replace(fixture.podDir(FIXTURE_POD, QosClass.BURSTABLE).resolve("io.stat"), "");
    fixture.advance(Duration.ofSeconds(2));

    assertThat(fixture.scrape(pods))
        .contains("ioqos_pod_io_read_bytes_total{" + LABELS + "} 1048576");
  }

  @Test
  void countersMirrorTheKernelAcrossAgentRestarts() {
    pods.managed(FIXTURE_POD, "shop", "backup", "low", path, TierState.APPLIED);
    String before = fixture.scrape(pods);

    MetricsFixture restarted = new MetricsFixture(temp.resolve("restart"));
    PodIoMetrics again = restarted.podMetrics();
    again.managed(FIXTURE_POD, "shop", "backup", "low", path, TierState.APPLIED);
    String after = restarted.scrape(again);

    String line = "ioqos_pod_io_written_bytes_total{" + LABELS + "} 2.097152E7";
    assertThat(before).contains(line);
    assertThat(after).contains(line);
  }

  @Test
  void forgettingAPodRemovesAllItsSeries() {
    fixture.ledger.put(
        FIXTURE_POD, new IoSettings(OptionalInt.of(500), OptionalInt.empty(), Map.of(), Map.of()));
    pods.managed(FIXTURE_POD, "shop", "backup", "low", path, TierState.APPLIED);
    assertThat(fixture.scrape(pods)).contains("pod=\"backup\"");

    assertThat(pods.openFiles()).as("io.stat and io.pressure kept open").isEqualTo(2);

    pods.forget(FIXTURE_POD);

    assertThat(pods.openFiles()).isZero();
    assertThat(fixture.scrape(pods)).doesNotContain("pod=\"backup\"");
    assertThat(pods.tracked()).isEmpty();
  }

  @Test
  void threadsSharingARefreshReadEveryPodOnceAndTheRefreshSaysWhenTheLastWasRead()
      throws Exception {
    int count = 40;
    for (int i = 0; i < count; i++) {
      String uid = String.format("00000000-0000-4000-8000-%012d", i);
      MetricsFixture.replace(
          fixture.createPod(uid, QosClass.BURSTABLE).resolve("io.stat"),
          "254:0 rbytes=" + (1000 + i) + " wbytes=0 rios=1 wios=0 dbytes=0 dios=0\n");
      pods.managed(
          uid,
          "shop",
          "pod-" + i,
          "low",
          MetricsFixture.podPath(uid, QosClass.BURSTABLE),
          TierState.APPLIED);
    }
    fixture.files.reads.set(0);

    PodIoMetrics.Refresh refresh = pods.refreshing();
    assertThat(refresh.nanos()).as("nothing read yet").isZero();
    Thread other = new Thread(refresh::help);
    other.start();
    refresh.help();
    other.join();

    assertThat(fixture.files.reads.get())
        .as("io.stat and io.pressure of each pod, once")
        .isEqualTo(2 * count);
    assertThat(refresh.nanos()).isPositive();
    String text = pods.render();
    for (int i = 0; i < count; i++) {
      assertThat(text).contains("pod=\"pod-" + i + "\",tier=\"low\"} " + (1000 + i) + ".0\n");
    }
  }

  @Test
  void aScrapeReadsTheKeptFilesAgainAndAReplacedOrForgottenPodClosesThem() {
    pods.managed(FIXTURE_POD, "shop", "backup", "low", path, TierState.APPLIED);
    fixture.scrape(pods);
    Path dir = fixture.podDir(FIXTURE_POD, QosClass.BURSTABLE);
    MetricsFixture.replace(
        dir.resolve("io.stat"), "254:0 rbytes=2097152 wbytes=1 rios=512 wios=1 dbytes=0 dios=0\n");
    MetricsFixture.replace(
        dir.resolve("io.pressure"),
        "some avg10=0.00 avg60=0.00 avg300=0.00 total=9000000\n"
            + "full avg10=0.00 avg60=0.00 avg300=0.00 total=5000000\n");
    fixture.advance(Duration.ofSeconds(2));

    assertThat(fixture.scrape(pods))
        .contains("ioqos_pod_io_read_bytes_total{" + LABELS + "} 2097152")
        .contains("ioqos_pod_io_pressure_waiting_seconds_total{" + POD_LABELS + "} 9.0")
        .contains("ioqos_pod_io_pressure_stalled_seconds_total{" + POD_LABELS + "} 5.0");
    assertThat(pods.openFiles()).isEqualTo(2);

    // A new identity (here the tier) is a new series set: the old one's files are closed.
    pods.managed(FIXTURE_POD, "shop", "backup", "high", path, TierState.APPLIED);
    assertThat(pods.openFiles()).isZero();
    fixture.advance(Duration.ofSeconds(2));
    assertThat(fixture.scrape(pods)).contains("ioqos_pod_io_read_bytes_total{device=\"254:0\"");
    assertThat(pods.openFiles()).isEqualTo(2);

    pods.close();
    assertThat(pods.openFiles()).isZero();
    assertThat(pods.tracked()).isEmpty();
  }

  @Test
  void aTierChangeReplacesTheSeriesAndAFailedApplyIsZero() {
    pods.managed(FIXTURE_POD, "shop", "backup", "low", path, TierState.APPLIED);
    fixture.scrape(pods);

    pods.managed(FIXTURE_POD, "shop", "backup", "high", path, TierState.FAILED);
    String text = fixture.scrape(pods);

    assertThat(text)
        .doesNotContain("tier=\"low\"")
        .contains("ioqos_pod_tier_applied{namespace=\"shop\",pod=\"backup\",tier=\"high\"} 0")
        .contains(
            "ioqos_pod_io_read_bytes_total{device=\"254:0\",device_name=\"vda\","
                + "namespace=\"shop\",pod=\"backup\",tier=\"high\"} 1048576");
  }

  @Test
  void aPodTargetedByVolumeNamesItsDisksAndFollowsWhenTheyChange() {
    pods.managed(FIXTURE_POD, "shop", "backup", "low", path, TierState.APPLIED);
    assertThat(fixture.scrape(pods)).doesNotContain("ioqos_pod_target_disk_info");

    String both = scrapeWithDisks("254:16", "254:0");
    assertThat(both)
        .contains("# TYPE ioqos_pod_target_disk_info gauge")
        .contains("ioqos_pod_target_disk_info{" + LABELS + "} 1")
        .contains(
            "ioqos_pod_target_disk_info{device=\"254:16\",device_name=\"vdb\","
                + POD_LABELS
                + "} 1");
    // Sorted by disk, and the family between the io.stat ones and the tier's, as names sort.
    assertThat(
            both.indexOf(
                "device=\"254:0\",device_name=\"vda\",namespace=\"shop\",pod=\"backup\",tier=\"low\"} 1.0\nioqos_pod_target_disk_info{device=\"254:16\""))
        .isPositive();
    assertThat(both.indexOf("ioqos_pod_target_disk_info"))
        .isGreaterThan(both.indexOf("ioqos_pod_io_written_bytes_total"))
        .isLessThan(both.indexOf("ioqos_pod_tier_applied"));

    // The volume moved to vdb alone: vda's series goes.
    assertThat(scrapeWithDisks("254:16"))
        .doesNotContain("ioqos_pod_target_disk_info{" + LABELS)
        .contains("ioqos_pod_target_disk_info{device=\"254:16\"");
  }

  /** A scrape after the fixture pod was reported with these disks of its own. */
  String scrapeWithDisks(String... disks) {
    pods.managed(
        FIXTURE_POD,
        "shop",
        "backup",
        "low",
        path,
        TierState.APPLIED,
        java.util.Arrays.stream(disks).map(DeviceId::parse).toList());
    return fixture.scrape(pods);
  }

  @Test
  void aDryRunPodHasIoSeriesButNoAppliedState() {
    pods.managed(FIXTURE_POD, "shop", "backup", "low", path, TierState.DRY_RUN);

    String text = fixture.scrape(pods);

    assertThat(text).contains("ioqos_pod_io_read_bytes_total{" + LABELS + "}");
    assertThat(text).doesNotContain("ioqos_pod_tier_applied{");
  }

  @Test
  void aPodWhoseCgroupAppearsLaterGetsItsSeriesThen() {
    String uid = "11111111-2222-4333-8444-666666666666";
    String besteffort = MetricsFixture.podPath(uid, QosClass.BEST_EFFORT);
    pods.managed(uid, "shop", "late", "low", besteffort, TierState.DRY_RUN);
    assertThat(fixture.scrape(pods)).doesNotContain("pod=\"late\"");

    Path dir = fixture.createPod(uid, QosClass.BEST_EFFORT);
    MetricsFixture.replace(
        dir.resolve("io.stat"), "254:16 rbytes=0 wbytes=8192 rios=0 wios=2 dbytes=0 dios=0\n");
    fixture.advance(Duration.ofSeconds(2));

    assertThat(fixture.scrape(pods))
        .contains(
            "ioqos_pod_io_written_bytes_total{device=\"254:16\",device_name=\"vdb\","
                + "namespace=\"shop\",pod=\"late\",tier=\"low\"} 8192");
  }
}
