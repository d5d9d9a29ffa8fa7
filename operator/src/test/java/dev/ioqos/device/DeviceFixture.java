package dev.ioqos.device;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A scenario under {@code src/test/resources/device/<scenario>/}: its {@code proc/1/mountinfo} is
 * used in place, and its {@code tree.txt} is expanded into a sysfs and devfs laid out as the kernel
 * and udev lay them out (relative symlinks in {@code class/block}, {@code block}, {@code
 * dev/block}, {@code slaves} and {@code holders}), so that git never has to store symlinks.
 *
 * <pre>
 * disk NAME MAJ:MIN PARENT          whole disk at sys/PARENT/NAME (PARENT ends in .../block for
 *                                   SCSI and virtio, in .../nvme/nvmeN for NVMe)
 * part NAME MAJ:MIN DISK NUMBER     partition NUMBER of DISK, inside the disk's directory
 * dm NAME MAJ:MIN DM-NAME SLAVE...  device-mapper device over its slaves (LVM, LUKS)
 * md NAME MAJ:MIN LEVEL SLAVE...    md RAID device over its slaves
 * virtual NAME MAJ:MIN              slave-less virtual disk (loop, zram, ram)
 * devlink PATH TARGET               symlink PATH below /dev pointing to TARGET, as udev makes
 * node PATH                         a non-block node below /dev (an empty file stands in)
 * queue NAME ROTATIONAL SCHEDULER   queue/rotational and queue/scheduler of a declared device
 *                                   (the rest of the line, e.g. {@code [none] mq-deadline bfq})
 * </pre>
 */
public record DeviceFixture(Path procfs, Path sysfs, Path devfs) {

  static DeviceFixture build(String scenario, Path workDir) {
    try {
      Path resources = resourceDir(scenario);
      DeviceFixture fixture =
          new DeviceFixture(
              resources.resolve("proc"), workDir.resolve("sys"), workDir.resolve("dev"));
      Files.createDirectories(fixture.sysfs);
      Files.createDirectories(fixture.devfs);
      new Builder(fixture)
          .apply(Files.readAllLines(resources.resolve("tree.txt"), StandardCharsets.UTF_8));
      return fixture;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Expands tree.txt lines into {@code sysfs} and {@code devfs}, for other scenarios' trees. */
  public static void expand(List<String> treeLines, Path sysfs, Path devfs) {
    try {
      Files.createDirectories(sysfs);
      Files.createDirectories(devfs);
      new Builder(new DeviceFixture(null, sysfs, devfs)).apply(treeLines);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static Path resourceDir(String scenario) {
    var url = DeviceFixture.class.getResource("/device/" + scenario + "/tree.txt");
    if (url == null) {
      throw new IllegalArgumentException("no test scenario " + scenario);
    }
    try {
      return Path.of(url.toURI()).getParent();
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException("no test scenario " + scenario, e);
    }
  }

  DiskResolver resolver() {
    return new DiskResolver(procfs, sysfs, devfs);
  }

  /** Expands tree.txt lines; remembers each device's directory for slaves and partitions. */
  private static final class Builder {
    private final DeviceFixture fixture;
    private final Map<String, Path> dirs = new HashMap<>();

    Builder(DeviceFixture fixture) {
      this.fixture = fixture;
    }

    void apply(List<String> lines) throws IOException {
      int number = 0;
      for (String raw : lines) {
        number++;
        String line = raw.strip();
        if (line.isEmpty() || line.startsWith("#")) {
          continue;
        }
        String[] f = line.split("\\s+");
        try {
          switch (f[0]) {
            case "disk" -> wholeDisk(f[1], f[2], fixture.sysfs.resolve(f[3]).resolve(f[1]));
            case "part" -> partition(f[1], f[2], f[3], f[4]);
            case "dm" -> stacked(f[1], f[2], "dm/name", f[3], List.of(f).subList(4, f.length));
            case "md" -> stacked(f[1], f[2], "md/level", f[3], List.of(f).subList(4, f.length));
            case "virtual" -> wholeDisk(f[1], f[2], virtualDir(f[1]));
            case "devlink" -> link(fixture.devfs.resolve(f[1]), Path.of(f[2]));
            case "node" -> write(fixture.devfs.resolve(f[1]), "");
            case "queue" -> queue(f[1], f[2], line.split("\\s+", 4)[3]);
            default -> throw new IllegalArgumentException("unknown directive " + f[0]);
          }
        } catch (RuntimeException e) {
          throw new IllegalArgumentException("tree.txt line " + number + ": " + line, e);
        }
      }
    }

    private void queue(String name, String rotational, String scheduler) throws IOException {
      write(known(name).resolve("queue/rotational"), rotational + "\n");
      write(known(name).resolve("queue/scheduler"), scheduler + "\n");
    }

    private void wholeDisk(String name, String majMin, Path dir) throws IOException {
      device(name, majMin, dir);
      Files.createDirectories(dir.resolve("slaves"));
      linkTo(fixture.sysfs.resolve("block").resolve(name), dir);
    }

    private void partition(String name, String majMin, String disk, String partNumber)
        throws IOException {
      Path dir = known(disk).resolve(name);
      device(name, majMin, dir);
      write(dir.resolve("partition"), partNumber + "\n");
    }

    private void stacked(String name, String majMin, String file, String value, List<String> slaves)
        throws IOException {
      Path dir = virtualDir(name);
      wholeDisk(name, majMin, dir);
      write(dir.resolve(file), value + "\n");
      for (String slave : slaves) {
        linkTo(dir.resolve("slaves").resolve(slave), known(slave));
        linkTo(known(slave).resolve("holders").resolve(name), dir);
      }
    }

    /** What every block device has: dev, holders/, and its class, dev and node entries. */
    private void device(String name, String majMin, Path dir) throws IOException {
      write(dir.resolve("dev"), majMin + "\n");
      Files.createDirectories(dir.resolve("holders"));
      linkTo(fixture.sysfs.resolve("class/block").resolve(name), dir);
      linkTo(fixture.sysfs.resolve("dev/block").resolve(majMin), dir);
      write(fixture.devfs.resolve(name), "");
      dirs.put(name, dir);
    }

    private Path virtualDir(String name) {
      return fixture.sysfs.resolve("devices/virtual/block").resolve(name);
    }

    private Path known(String name) {
      Path dir = dirs.get(name);
      if (dir == null) {
        throw new IllegalArgumentException(name + " is used before it is declared");
      }
      return dir;
    }

    private static void linkTo(Path link, Path target) throws IOException {
      link(link, link.getParent().relativize(target));
    }

    private static void link(Path link, Path target) throws IOException {
      Files.createDirectories(link.getParent());
      Files.createSymbolicLink(link, target);
    }

    private static void write(Path file, String text) throws IOException {
      Files.createDirectories(file.getParent());
      Files.writeString(file, text, StandardCharsets.UTF_8);
    }
  }
}
