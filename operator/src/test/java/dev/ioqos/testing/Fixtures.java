package dev.ioqos.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Copies a fixture tree from src/test/resources into a writable temp directory; from the directory,
 * or from this module's test jar when another module's tests use it (the demo's).
 */
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
    try (FileSystem jar = openJar(url)) {
      Path source = jar == null ? Paths.get(url.toURI()) : jar.provider().getPath(url.toURI());
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

  /** The test jar's file system when {@code url} points into a jar, else null. */
  private static FileSystem openJar(URL url) throws IOException, URISyntaxException {
    if (!url.getProtocol().equals("jar")) {
      return null;
    }
    return FileSystems.newFileSystem(url.toURI(), Map.of());
  }
}
