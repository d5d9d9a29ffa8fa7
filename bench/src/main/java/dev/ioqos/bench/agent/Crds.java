package dev.ioqos.bench.agent;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/** Installs the repository's CRDs (server-side apply) and waits until they are Established. */
final class Crds {
  private Crds() {}

  static void install(KubernetesClient client, Path directory) throws IOException {
    List<Path> files;
    try (Stream<Path> list = Files.list(directory)) {
      files = list.filter(f -> f.toString().endsWith(".yml")).sorted().toList();
    }
    if (files.isEmpty()) {
      throw new IllegalStateException("no CRDs (*.yml) in " + directory);
    }
    for (Path file : files) {
      CustomResourceDefinition crd;
      try (InputStream yaml = Files.newInputStream(file)) {
        crd = client.apiextensions().v1().customResourceDefinitions().load(yaml).item();
      }
      client.resource(crd).fieldManager("ioqos-bench").forceConflicts().serverSideApply();
      client
          .apiextensions()
          .v1()
          .customResourceDefinitions()
          .withName(crd.getMetadata().getName())
          .waitUntilCondition(
              c ->
                  c != null
                      && c.getStatus() != null
                      && c.getStatus().getConditions() != null
                      && c.getStatus().getConditions().stream()
                          .anyMatch(
                              x ->
                                  x.getType().equals("Established")
                                      && x.getStatus().equals("True")),
              30,
              TimeUnit.SECONDS);
    }
  }
}
