package dev.ioqos.testkit;

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
 * The repository's checked-in CRDs ({@code crds/*.yml}, copied into the test kit's jar at build
 * time), applied server-side as an admin would, each awaited until Established; and the same for
 * any one CRD document.
 */
public final class IoqosCrds {
  static final String RESOURCE_DIR = "/dev/ioqos/testkit/crds/";
  static final List<Class<? extends HasMetadata>> TYPES =
      List.of(IoPolicy.class, IoNodeState.class);

  private IoqosCrds() {}

  /** The jar resource holding one type's CRD, as crds/ names it. */
  static String resource(Class<? extends HasMetadata> type) {
    return RESOURCE_DIR + HasMetadata.getFullResourceName(type) + "-v1.yml";
  }

  /** Loads the CRD of {@code type} from the jar. */
  static CustomResourceDefinition load(KubernetesClient client, Class<? extends HasMetadata> type) {
    try (InputStream yaml = IoqosCrds.class.getResourceAsStream(resource(type))) {
      if (yaml == null) {
        throw new IllegalStateException(
            "this build of the ioqos test kit lacks the CRD resource " + resource(type));
      }
      return client.apiextensions().v1().customResourceDefinitions().load(yaml).item();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + resource(type), e);
    }
  }

  /** Installs every ioqos CRD as {@code fieldManager} and returns their names once all serve. */
  public static List<String> install(KubernetesClient client, String fieldManager) {
    List<String> names = new ArrayList<>();
    for (Class<? extends HasMetadata> type : TYPES) {
      CustomResourceDefinition crd = load(client, type);
      client.resource(crd).fieldManager(fieldManager).forceConflicts().serverSideApply();
      names.add(crd.getMetadata().getName());
    }
    for (String name : names) {
      awaitEstablished(client, name);
    }
    return names;
  }

  /** Applies one CRD document server-side as {@code fieldManager} and waits until it serves. */
  public static CustomResourceDefinition install(
      KubernetesClient client, InputStream yaml, String fieldManager) {
    CustomResourceDefinition crd =
        client.apiextensions().v1().customResourceDefinitions().load(yaml).item();
    client.resource(crd).fieldManager(fieldManager).forceConflicts().serverSideApply();
    return awaitEstablished(client, crd.getMetadata().getName());
  }

  /** Waits up to 30 s until the CRD {@code name} is Established and returns it. */
  public static CustomResourceDefinition awaitEstablished(KubernetesClient client, String name) {
    return client
        .apiextensions()
        .v1()
        .customResourceDefinitions()
        .withName(name)
        .waitUntilCondition(IoqosCrds::established, 30, TimeUnit.SECONDS);
  }

  /** Whether the CRD's Established condition is True (it serves). */
  public static boolean established(CustomResourceDefinition crd) {
    return crd != null
        && crd.getStatus() != null
        && crd.getStatus().getConditions() != null
        && crd.getStatus().getConditions().stream()
            .anyMatch(c -> c.getType().equals("Established") && c.getStatus().equals("True"));
  }
}
