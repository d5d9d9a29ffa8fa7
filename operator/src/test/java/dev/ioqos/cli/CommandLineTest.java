package dev.ioqos.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ioqos.testing.Fixtures;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CommandLineTest {
  static final String UID = "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d";

  @TempDir Path temp;
  Path node;
  String[] roots;

  @BeforeEach
  void setUp() {
    node = Fixtures.copy("node/debian-6.12-systemd", temp);
    roots =
        new String[] {
          "--cgroupfs", node.resolve("cgroup").toString(),
          "--sysfs", node.resolve("sys").toString(),
          "--procfs", node.resolve("proc").toString(),
          "--devfs", node.resolve("dev").toString()
        };
  }

  record Run(int exit, String out, String err) {}

  Run run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int exit = Main.execute(new PrintWriter(out, true), new PrintWriter(err, true), args);
    return new Run(exit, out.toString(), err.toString());
  }

  String[] with(String... args) {
    String[] all = new String[args.length + roots.length];
    System.arraycopy(args, 0, all, 0, args.length);
    System.arraycopy(roots, 0, all, args.length, roots.length);
    return all;
  }

  @Test
  void theProductJarHasNoDemoAndSaysWhereItIs() {
    assertThat(new picocli.CommandLine(new Main()).getSubcommands()).doesNotContainKey("demo");

    Run run = run("demo", "--binaries", "/nowhere");

    assertThat(run.exit()).isEqualTo(2);
    assertThat(run.err().strip().lines()).hasSize(1);
    assertThat(run.err()).contains("./demo").contains("demo-app/target/ioqos-demo.jar demo");
  }

  @Test
  void everyCommandAnswersHelpWithItsUsage() {
    picocli.CommandLine main = new picocli.CommandLine(new Main());
    assertThat(main.getSubcommands()).isNotEmpty();
    // Keys include aliases (apply for reconcile): the usage names the command's own name.
    for (var command : main.getSubcommands().entrySet()) {
      String name = command.getKey();
      Run help = run(name, "--help");
      assertThat(help.exit()).as(name + " --help exit").isZero();
      assertThat(help.out())
          .as(name + " --help")
          .contains("Usage: ioqos " + command.getValue().getCommandName());
      assertThat(help.err()).as(name + " --help stderr").isEmpty();
    }
  }

  @Test
  void pathDetectsTheSystemdDriverAndPrintsTheAbsoluteDirectory() {
    Run run = run(with("path", "--uid", UID, "--qos-class", "Burstable"));

    assertThat(run.exit()).isZero();
    assertThat(run.out().strip())
        .isEqualTo(
            node.resolve(
                    "cgroup/kubepods.slice/kubepods-burstable.slice/"
                        + "kubepods-burstable-pod0a1b2c3d_4e5f_4a6b_8c7d_9e0f1a2b3c4d.slice")
                .toString());
  }

  @Test
  void pathWithAnExplicitDriverAndRootNeedsNoDirectory() {
    Run run =
        run(
            with(
                "path",
                "--uid",
                UID,
                "--qos-class",
                "BestEffort",
                "--cgroup-driver",
                "cgroupfs",
                "--kubelet-cgroup-root",
                "/kubelet"));

    assertThat(run.exit()).isZero();
    assertThat(run.out().strip())
        .isEqualTo(node.resolve("cgroup/kubelet/kubepods/besteffort/pod" + UID).toString());
  }

  @Test
  void badInputIsOneSentenceNamingIt() {
    Run badUid = run(with("path", "--uid", "../../etc", "--qos-class", "Burstable"));
    assertThat(badUid.exit()).isNotZero();
    assertThat(badUid.out()).isEmpty();
    assertThat(badUid.err().strip())
        .isEqualTo(
            "ioqos path: pod UID '../../etc' is not a UUID (expected 8-4-4-4-12 hexadecimal"
                + " digits) nor a static pod's config hash (32 hexadecimal digits)");

    Run badQos = run(with("path", "--uid", UID, "--qos-class", "Gold"));
    assertThat(badQos.exit()).isNotZero();
    assertThat(badQos.err()).contains("unknown QoS class 'Gold'");

    Run missing = run(with("path", "--uid", UID));
    assertThat(missing.exit()).isNotZero();
    assertThat(missing.err()).contains("--qos-class");
  }

  @Test
  void autoDetectionFailsClearlyWithoutKubepods() throws Exception {
    Run run =
        run(
            "path",
            "--uid",
            UID,
            "--qos-class",
            "Burstable",
            "--cgroupfs",
            temp.resolve("none").toString());

    assertThat(run.exit()).isNotZero();
    assertThat(run.err()).contains("cannot detect the cgroup driver").contains("kubepods.slice");
  }

  @Test
  void probeJsonHasTheContractFields() throws Exception {
    Run run = run(with("probe", "--output", "json"));

    assertThat(run.exit()).isZero();
    JsonNode json = new ObjectMapper().readTree(run.out());
    assertThat(json.get("cgroupVersion").asText()).isEqualTo("v2");
    assertThat(json.get("ioController").asBoolean()).isTrue();
    assertThat(json.get("kubepods").get("driver").asText()).isEqualTo("systemd");
    assertThat(json.get("kubepods").get("path").asText()).isEqualTo("/kubepods.slice");
    assertThat(json.get("kubepods").get("ioEnabled").asBoolean()).isTrue();
    assertThat(json.get("psi").asBoolean()).isTrue();
    assertThat(json.get("ioLatency").asBoolean()).isFalse();
    assertThat(json.get("devices")).hasSize(2);
    JsonNode vdb = json.get("devices").get(1);
    assertThat(vdb.get("name").asText()).isEqualTo("vdb");
    assertThat(vdb.get("majMin").asText()).isEqualTo("254:16");
    assertThat(vdb.get("scheduler").asText()).isEqualTo("bfq");
    assertThat(vdb.get("rotational").asBoolean()).isTrue();
    assertThat(vdb.get("iocost").asBoolean()).isFalse();
    assertThat(vdb.get("weightMechanism").asText()).isEqualTo("bfq");
  }

  @Test
  void probeWithoutKubepodsSaysNull() throws Exception {
    Run run = run(with("probe", "--output", "json", "--cgroup-driver", "cgroupfs"));

    assertThat(new ObjectMapper().readTree(run.out()).get("kubepods").isNull()).isTrue();
  }

  @Test
  void probeTextIsForPeople() {
    Run run = run(with("probe"));

    assertThat(run.exit()).isZero();
    assertThat(run.out()).contains("kubepods:       /kubepods.slice (systemd driver), io enabled");
    assertThat(run.out()).containsPattern("vdb\\s+254:16\\s+bfq\\s+yes\\s+off\\s+bfq");
  }

  @Test
  void deviceResolvesAPathOnAPartitionToItsDisk() throws Exception {
    Run run = run(with("device", "/var/lib/kubelet/pods"));

    assertThat(run.err()).isEmpty();
    assertThat(run.exit()).isZero();
    assertThat(run.out()).isEqualTo("254:16 vdb" + System.lineSeparator());
  }

  @Test
  void deviceOnTmpfsIsAClearError() {
    Run run = run(with("device", "/run/containerd"));

    assertThat(run.exit()).isNotZero();
    assertThat(run.err().strip())
        .isEqualTo(
            "ioqos device: /run/containerd is on tmpfs (mounted at /run), which has no block device");
  }

  @Test
  void anErrorLineNamesTheCausesItsMessageDoesNotAlreadySay() {
    // fabric8's KubernetesClientException says only this when the API server cannot be reached.
    assertThat(
            Main.sentence(
                new IllegalStateException(
                    "An error has occurred.", new java.net.ConnectException("Connection refused"))))
        .isEqualTo("An error has occurred. (caused by ConnectException: Connection refused)");
    assertThat(
            Main.sentence(
                new IllegalStateException(
                    "An error has occurred.",
                    new NoClassDefFoundError("io/fabric8/kubernetes/api/model/apps/Deployment"))))
        .isEqualTo(
            "An error has occurred. (caused by NoClassDefFoundError:"
                + " io/fabric8/kubernetes/api/model/apps/Deployment)");
    java.io.IOException io = new java.io.IOException("disk full");
    assertThat(Main.sentence(new IllegalStateException("cannot write the ledger: disk full", io)))
        .isEqualTo("cannot write the ledger: disk full");
    assertThat(Main.sentence(new IllegalStateException("stopped", new InterruptedException())))
        .isEqualTo("stopped (caused by InterruptedException)");
    assertThat(Main.sentence(new IllegalArgumentException((String) null)))
        .isEqualTo("IllegalArgumentException");
  }
}
