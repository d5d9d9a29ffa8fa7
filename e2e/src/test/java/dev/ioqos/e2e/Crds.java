package dev.ioqos.e2e;

import dev.ioqos.testkit.IoqosCrds;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/** Installs CustomResourceDefinitions the way an admin would and waits until they serve. */
final class Crds {
  private Crds() {}

  /** The repository's generated CRDs ({@code crds/} next to the e2e module). */
  static Path directory() {
    String base =
        Optional.ofNullable(System.getProperty("basedir")).orElse(System.getProperty("user.dir"));
    return Path.of(base).resolve("../crds").toAbsolutePath().normalize();
  }

  /** Applies every CRD in {@code crds/} server-side and waits for each to be Established. */
  static List<CustomResourceDefinition> installIoqos(KubernetesClient client) {
    List<CustomResourceDefinition> installed = new ArrayList<>();
    try (Stream<Path> files = Files.list(directory())) {
      for (Path file : files.filter(f -> f.toString().endsWith(".yml")).sorted().toList()) {
        installed.add(install(client, file));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list " + directory(), e);
    }
    return installed;
  }

  /** Applies one CRD file server-side and waits for it to be Established. */
  static CustomResourceDefinition install(KubernetesClient client, Path file) {
    try (InputStream yaml = Files.newInputStream(file)) {
      return install(client, yaml);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
  }

  /** Applies one CRD document server-side and waits for it to be Established. */
  static CustomResourceDefinition install(KubernetesClient client, InputStream yaml) {
    return IoqosCrds.install(client, yaml, "ioqos-e2e");
  }
}
