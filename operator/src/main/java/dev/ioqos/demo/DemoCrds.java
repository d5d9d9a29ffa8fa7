package dev.ioqos.demo;

import dev.ioqos.api.v1alpha1.IoNodeState;
import dev.ioqos.api.v1alpha1.IoPolicy;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The repository's checked-in CRDs ({@code crds/*.yml}, copied into the jar at build time), applied
 * server-side as an admin would, each awaited until Established.
 */
public final class DemoCrds {
  static final String RESOURCE_DIR = "/dev/ioqos/demo/crds/";
  static final List<Class<? extends HasMetadata>> TYPES =
      List.of(IoPolicy.class, IoNodeState.class);

  private DemoCrds() {}

  /** The jar resource holding one type's CRD, as crds/ names it. */
  static String resource(Class<? extends HasMetadata> type) {
    return RESOURCE_DIR + HasMetadata.getFullResourceName(type) + "-v1.yml";
  }

  /** Loads the CRD of {@code type} from the jar. */
  static CustomResourceDefinition load(KubernetesClient client, Class<? extends HasMetadata> type) {
    try (InputStream yaml = DemoCrds.class.getResourceAsStream(resource(type))) {
      if (yaml == null) {
        throw new IllegalStateException(
            "this build of ioqos lacks the CRD resource " + resource(type));
      }
      return client.apiextensions().v1().customResourceDefinitions().load(yaml).item();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + resource(type), e);
    }
  }

  /** Installs every ioqos CRD and returns their names once all serve. */
  public static List<String> install(KubernetesClient client) {
    List<String> names = new ArrayList<>();
    for (Class<? extends HasMetadata> type : TYPES) {
      CustomResourceDefinition crd = load(client, type);
      client.resource(crd).fieldManager("ioqos-demo").forceConflicts().serverSideApply();
      names.add(crd.getMetadata().getName());
    }
    for (String name : names) {
      client
          .apiextensions()
          .v1()
          .customResourceDefinitions()
          .withName(name)
          .waitUntilCondition(DemoCrds::established, 30, TimeUnit.SECONDS);
    }
    return names;
  }

  private static boolean established(CustomResourceDefinition crd) {
    return crd != null
        && crd.getStatus() != null
        && crd.getStatus().getConditions() != null
        && crd.getStatus().getConditions().stream()
            .anyMatch(c -> c.getType().equals("Established") && c.getStatus().equals("True"));
  }
}
