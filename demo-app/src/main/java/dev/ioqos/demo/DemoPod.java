package dev.ioqos.demo;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * One of the demo's pods: its name, the tier annotation it was created with (null: none), its UID
 * and its cgroup, both as the agent names it and as a directory.
 */
record DemoPod(String name, String annotatedTier, String uid, String cgroupPath, Path dir) {

  String qualifiedName() {
    return DemoCluster.NAMESPACE + "/" + name;
  }

  /** A cgroup file's content read back, its lines joined by "; "; "(absent)" without the file. */
  String readBack(String file) {
    try {
      String text = Files.readString(dir.resolve(file)).strip();
      return text.isEmpty() ? "(empty)" : String.join("; ", text.lines().toList());
    } catch (IOException e) {
      return "(absent)";
    }
  }
}
