package dev.ioqos.device;

import static dev.ioqos.device.DeviceResolutionException.reason;

import java.io.IOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.regex.PatternSyntaxException;
import java.util.stream.Stream;

/**
 * Device-node names under a devfs root: symlinks such as {@code disk/by-id/*} and {@code mapper/*}
 * are followed lexically inside the root, never through the running process's /dev.
 */
final class DevfsNames {

  /** The kernel's own limit on symlinks in one lookup (ELOOP after 40). */
  private static final int MAX_LINKS = 40;

  private final Path devfs;

  DevfsNames(Path devfs) {
    this.devfs = devfs;
  }

  /**
   * The path below /dev that {@code parts} (a path below /dev) leads to once every symlink in it is
   * followed; an absolute target {@code /dev/x} is re-rooted at the devfs root.
   */
  List<String> follow(String input, List<String> parts) throws DeviceResolutionException {
    Deque<String> todo = new ArrayDeque<>(parts);
    List<String> done = new ArrayList<>();
    int links = 0;
    while (!todo.isEmpty()) {
      String part = todo.removeFirst();
      if (part.isEmpty() || part.equals(".")) {
        continue;
      }
      if (part.equals("..")) {
        if (done.isEmpty()) {
          throw new NoSuchDeviceException(input, input + " leads out of /dev through a symlink");
        }
        done.remove(done.size() - 1);
        continue;
      }
      done.add(part);
      Path here = at(done);
      if (!Files.isSymbolicLink(here)) {
        continue;
      }
      if (++links > MAX_LINKS) {
        throw new DeviceTreeException(
            here, input + " goes through more than " + MAX_LINKS + " symlinks under " + devfs);
      }
      String target = readLink(here);
      done.remove(done.size() - 1);
      List<String> next;
      if (target.startsWith("/")) {
        List<String> absolute = MountTable.components(target);
        if (absolute.isEmpty() || !absolute.get(0).equals("dev")) {
          throw new NoSuchDeviceException(
              input, input + " is a symlink to " + target + ", which is outside /dev");
        }
        done.clear();
        next = absolute.subList(1, absolute.size());
      } else {
        next = List.of(target.split("/"));
      }
      for (int i = next.size() - 1; i >= 0; i--) {
        todo.addFirst(next.get(i));
      }
    }
    return done;
  }

  /**
   * The /dev paths of the entries in directory {@code dirParts} (below /dev) whose file name
   * matches {@code glob}, sorted.
   */
  List<String> expand(String input, List<String> dirParts, String glob)
      throws DeviceResolutionException {
    PathMatcher matcher;
    try {
      matcher = FileSystems.getDefault().getPathMatcher("glob:" + glob);
    } catch (PatternSyntaxException e) {
      throw new InvalidDeviceInputException(
          input, input + " is not a valid glob: " + e.getDescription(), e);
    }
    List<String> dir = follow(input, dirParts);
    Path dirPath = at(dir);
    String shown = dir.isEmpty() ? "/dev" : "/dev/" + String.join("/", dir);
    List<String> matches = new ArrayList<>();
    if (Files.isDirectory(dirPath)) {
      try (Stream<Path> entries = Files.list(dirPath)) {
        for (Path entry : entries.sorted().toList()) {
          if (matcher.matches(entry.getFileName())) {
            matches.add(shown + "/" + entry.getFileName());
          }
        }
      } catch (IOException e) {
        throw new DeviceTreeException(dirPath, "cannot list " + dirPath + ": " + reason(e), e);
      }
    }
    if (matches.isEmpty()) {
      String lookedIn = dirPath.toString().equals(shown) ? "" : " (looked in " + dirPath + ")";
      throw new NoSuchDeviceException(input, input + " matches nothing in " + shown + lookedIn);
    }
    return matches;
  }

  private Path at(List<String> parts) {
    Path path = devfs;
    for (String part : parts) {
      path = path.resolve(part);
    }
    return path;
  }

  private static String readLink(Path link) throws DeviceTreeException {
    try {
      return Files.readSymbolicLink(link).toString();
    } catch (IOException e) {
      throw new DeviceTreeException(link, "cannot read the symlink " + link + ": " + reason(e), e);
    }
  }
}
