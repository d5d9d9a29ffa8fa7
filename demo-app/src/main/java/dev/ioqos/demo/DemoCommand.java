package dev.ioqos.demo;

import ch.qos.logback.classic.Level;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.concurrent.Callable;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code ioqos demo}: see ioqos work in one command, on a real API server and the real agent. */
@Command(
    name = "demo",
    mixinStandardHelpOptions = true,
    description = {
      "Start a real etcd + kube-apiserver, install the CRDs, create a node, a policy and pods,"
          + " run the real agent on a simulated node (or this host's cgroups), and show what it"
          + " writes, a tier change, the metrics and the revert; then stop everything.",
      "With --kernel: run the repository's e2e/kernel/demo (a real kernel under QEMU); with"
          + " --kernel --protect: e2e/kernel/latency, the latency loop protecting a reader from a"
          + " writer on a kernel without io.latency."
    })
final class DemoCommand implements Callable<Integer> {
  static final List<String> KERNELS = List.of("6.12", "6.1");

  @Spec CommandSpec spec;

  @Option(
      names = "--binaries",
      paramLabel = "DIR",
      defaultValue = "${sys:user.home}/.kubeapitest",
      description =
          "where e2e/control-plane/build put etcd and kube-apiserver (default: ${DEFAULT-VALUE})")
  Path binaries;

  @Option(
      names = "--real-cgroups",
      description =
          "use this host's cgroup v2 tree (pods under /ioqos-demo, removed at the end) instead of"
              + " the sandbox; needs root and a pure cgroup v2 host with the io controller")
  boolean realCgroups;

  @Option(
      names = "--kernel",
      description = "run the kernel demo e2e/kernel/demo of the repository instead")
  boolean kernel;

  @Option(
      names = "--protect",
      description =
          "with --kernel: the latency protection scenario e2e/kernel/latency instead (a reader"
              + " with a latency target, a writer, the agent's latency loop)")
  boolean protect;

  @Parameters(
      arity = "0..1",
      paramLabel = "KERNEL",
      description = "with --kernel: the kernel to boot, 6.12 or 6.1 (default: the script's)")
  String kernelVersion;

  @Option(
      names = "--repo",
      paramLabel = "DIR",
      defaultValue = ".",
      description = "with --kernel: the ioqos repository (default: the current directory)")
  Path repo;

  @Option(names = "--cgroupfs", defaultValue = "/sys/fs/cgroup", hidden = true)
  Path cgroupfs;

  @Option(names = "--sysfs", defaultValue = "/sys", hidden = true)
  Path sysfs;

  @Option(names = "--procfs", defaultValue = "/proc", hidden = true)
  Path procfs;

  @Option(names = "--devfs", defaultValue = "/dev", hidden = true)
  Path devfs;

  @Option(
      names = "--disk-dir",
      paramLabel = "DIR",
      defaultValue = "/",
      description =
          "with --real-cgroups: the host directory whose disk the demo policy targets"
              + " (default: ${DEFAULT-VALUE})")
  String diskDir;

  @Override
  public Integer call() throws Exception {
    if (kernel) {
      if (realCgroups) {
        throw new ParameterException(
            spec.commandLine(), "--kernel and --real-cgroups are two different demos: pick one");
      }
      if (kernelVersion != null && !KERNELS.contains(kernelVersion)) {
        throw new ParameterException(
            spec.commandLine(),
            "the kernel demo boots " + String.join(" or ", KERNELS) + ", not " + kernelVersion);
      }
      return KernelDemo.run(
          repo,
          protect ? KernelDemo.PROTECT_SCRIPT : KernelDemo.SCRIPT,
          kernelVersion == null ? List.of() : List.of(kernelVersion));
    }
    if (protect) {
      throw new ParameterException(
          spec.commandLine(), "--protect goes with --kernel: ioqos demo --kernel --protect");
    }
    if (kernelVersion != null) {
      throw new ParameterException(
          spec.commandLine(),
          "a kernel version ("
              + kernelVersion
              + ") goes with --kernel: ioqos demo --kernel "
              + kernelVersion);
    }
    DemoOptions options =
        new DemoOptions(
            binaries,
            realCgroups,
            cgroupfs,
            sysfs,
            procfs,
            devfs,
            diskDir,
            Paths.get(System.getProperty("java.io.tmpdir")));
    Runnable restoreLogs = quietLogs();
    try {
      new Demo(options, spec.commandLine().getOut()).run();
    } finally {
      restoreLogs.run();
    }
    return 0;
  }

  /**
   * The demo's output is the story; the agent's INFO lines would drown it. IOQOS_LOG_LEVEL, when
   * set, wins as in {@code ioqos run}. Returns what puts the level back.
   */
  private static Runnable quietLogs() {
    if (System.getenv("IOQOS_LOG_LEVEL") != null
        || !(LoggerFactory.getLogger("dev.ioqos") instanceof ch.qos.logback.classic.Logger)) {
      return () -> {};
    }
    ch.qos.logback.classic.Logger ioqos =
        (ch.qos.logback.classic.Logger) LoggerFactory.getLogger("dev.ioqos");
    // fabric8 warns once per client that v1alpha1 is not a stable version: known, and noise here.
    ch.qos.logback.classic.Logger versions =
        (ch.qos.logback.classic.Logger)
            LoggerFactory.getLogger("io.fabric8.kubernetes.client.dsl.internal.VersionUsageUtils");
    Level before = ioqos.getLevel();
    Level versionsBefore = versions.getLevel();
    ioqos.setLevel(Level.WARN);
    versions.setLevel(Level.ERROR);
    return () -> {
      ioqos.setLevel(before);
      versions.setLevel(versionsBefore);
    };
  }
}
