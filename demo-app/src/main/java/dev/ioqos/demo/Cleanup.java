package dev.ioqos.demo;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/**
 * What the demo started, stopped in reverse order exactly once: at the end, on an error, or from a
 * shutdown hook when the user presses Ctrl-C.
 */
final class Cleanup {
  private final Deque<Step> steps = new ArrayDeque<>();
  private boolean done;

  private record Step(String what, AutoCloseable resource) {}

  synchronized <T extends AutoCloseable> T add(String what, T resource) {
    steps.push(new Step(what, resource));
    return resource;
  }

  synchronized void deleteLater(Path directory) {
    steps.push(new Step("remove " + directory, () -> deleteTree(directory)));
  }

  /** Stops everything; returns what could not be stopped, one line each. */
  synchronized List<String> run() {
    List<String> problems = new ArrayList<>();
    if (done) {
      return problems;
    }
    done = true;
    while (!steps.isEmpty()) {
      Step step = steps.pop();
      try {
        step.resource().close();
      } catch (Exception e) {
        problems.add(step.what() + ": " + e.getMessage());
      }
    }
    return problems;
  }

  static void deleteTree(Path directory) throws IOException {
    if (!Files.exists(directory)) {
      return;
    }
    Files.walkFileTree(
        directory,
        new SimpleFileVisitor<>() {
          @Override
          public FileVisitResult visitFile(Path file, BasicFileAttributes attrs)
              throws IOException {
            Files.delete(file);
            return FileVisitResult.CONTINUE;
          }

          @Override
          public FileVisitResult postVisitDirectory(Path dir, IOException e) throws IOException {
            if (e != null) {
              throw e;
            }
            Files.delete(dir);
            return FileVisitResult.CONTINUE;
          }
        });
  }
}
