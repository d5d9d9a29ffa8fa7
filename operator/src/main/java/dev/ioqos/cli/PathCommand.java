package dev.ioqos.cli;

import dev.ioqos.core.PodUid;
import dev.ioqos.core.QosClass;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code ioqos path}: prints a pod's cgroup directory. */
@Command(
    name = "path",
    mixinStandardHelpOptions = true,
    description = "Print the cgroup directory of a pod.")
final class PathCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Mixin NodeOptions node;

  @Option(names = "--uid", required = true, description = "the pod's metadata.uid")
  String uid;

  @Option(
      names = "--qos-class",
      required = true,
      description = "the pod's status.qosClass: Guaranteed, Burstable or BestEffort")
  String qosClass;

  @Override
  public Integer call() {
    // Validate the inputs before anything touches the filesystem.
    PodUid podUid = PodUid.of(uid);
    QosClass qos = QosClass.parse(qosClass);
    String relative = node.layout().podPath(qos, podUid);
    spec.commandLine().getOut().println(node.cgroupfs.resolve(relative.substring(1)));
    return 0;
  }
}
