package dev.ioqos.cli;

import dev.ioqos.device.Disk;
import dev.ioqos.device.DiskResolver;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code ioqos device PATH}: prints the whole disks on a path's I/O path. */
@Command(
    name = "device",
    mixinStandardHelpOptions = true,
    description = {
      "Print the whole disk(s) under a host path or device node, one 'MAJ:MIN name' per line.",
      "Arguments under /dev/ are device nodes (globs allowed); anything else is a host path."
    })
final class DeviceCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Mixin NodeOptions node;

  @Parameters(index = "0", paramLabel = "PATH", description = "a host path or /dev/ device node")
  String path;

  @Override
  public Integer call() throws Exception {
    DiskResolver resolver = new DiskResolver(node.procfs, node.sysfs, node.devfs);
    List<Disk> disks =
        path.startsWith("/dev/") ? resolver.forDeviceName(path) : resolver.forPath(path);
    for (Disk disk : disks) {
      spec.commandLine().getOut().println(disk.id() + " " + disk.name());
    }
    return 0;
  }
}
