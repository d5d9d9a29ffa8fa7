package dev.ioqos.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.stream.Stream;

/** Copies a fixture tree from src/test/resources into a writable temp directory. */
public final class Fixtures {
  private Fixtures() {}

  /**
   * Copies resource directory {@code scenario} (e.g. {@code node/debian-6.12-systemd}) to target.
   */
  public static Path copy(String scenario, Path target) {
    URL url = Fixtures.class.getClassLoader().getResource(scenario);
    if (url == null) {
      throw new IllegalArgumentException("no fixture " + scenario + " on the test classpath");
    }
    try {
      Path source = Paths.get(url.toURI());
      try (Stream<Path> files = Files.walk(source)) {
        for (Path file : (Iterable<Path>) files::iterator) {
          Path copy = target.resolve(source.relativize(file).toString());
          if (Files.isSymbolicLink(file)) {
            Files.createDirectories(copy.getParent());
            Files.createSymbolicLink(copy, Files.readSymbolicLink(file));
          } else if (Files.isDirectory(file, LinkOption.NOFOLLOW_LINKS)) {
            Files.createDirectories(copy);
          } else {
            Files.copy(file, copy);
          }
        }
      }
      Path tree = source.resolve("tree.txt");
      if (Files.isRegularFile(tree)) {
        // Maven's resource copy turns symlinks into directories: sysfs is built from a manifest.
        dev.ioqos.device.DeviceFixture.expand(
            Files.readAllLines(tree), target.resolve("sys"), target.resolve("dev"));
      }
      return target;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }
}
