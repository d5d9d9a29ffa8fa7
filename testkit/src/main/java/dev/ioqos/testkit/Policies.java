package dev.ioqos.testkit;

import dev.ioqos.api.v1alpha1.IoPolicy;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;

/** IoPolicies as the tests and the benchmark write them: YAML, as a user would. */
public final class Policies {
  /**
   * Tier {@code high} (weight 500) and tier {@code low} (weight 10, 20 MiB/s and 200 IOPS written).
   */
  public static final String HIGH_AND_LOW_TIERS =
      "  tiers:\n"
          + "    - {name: high, weight: 500}\n"
          + "    - name: low\n"
          + "      weight: 10\n"
          + "      limits: {writeBytesPerSecond: 20Mi, writeIOPS: 200}\n";

  private Policies() {}

  /**
   * The YAML of a policy named {@code name} that selects the namespaces labelled {@code
   * label=value}, with {@link #HIGH_AND_LOW_TIERS} and then {@code extraSpec} (lines of the spec,
   * indented two spaces; may be empty). The policy carries the same label when {@code labelled}, so
   * that a test can delete its own policies by label.
   */
  public static String highAndLow(
      String name, String label, String value, boolean labelled, String extraSpec) {
    return "apiVersion: ioqos.dev/v1alpha1\n"
        + "kind: IoPolicy\n"
        + "metadata:\n"
        + "  name: "
        + name
        + "\n"
        + (labelled ? "  labels: {" + label + ": '" + value + "'}\n" : "")
        + "spec:\n"
        + "  namespaceSelector: {matchLabels: {"
        + label
        + ": '"
        + value
        + "'}}\n"
        + HIGH_AND_LOW_TIERS
        + extraSpec;
  }

  /** The IoPolicy of a YAML document, not yet created. */
  public static IoPolicy load(KubernetesClient client, String yaml) {
    return client
        .resources(IoPolicy.class)
        .load(new ByteArrayInputStream(yaml.getBytes(StandardCharsets.UTF_8)))
        .item();
  }
}
