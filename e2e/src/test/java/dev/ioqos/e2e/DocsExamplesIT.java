package dev.ioqos.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import dev.ioqos.api.ApiMapping;
import dev.ioqos.api.v1alpha1.IoPolicy;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every IoPolicy shown in a {@code yaml} block of the documentation ({@code src/site/markdown}) is
 * admitted by a real API server with the real CRDs, and the agent can turn the stored object into
 * rules: the examples a reader copies work.
 */
class DocsExamplesIT {
  private static final Pattern YAML_BLOCK = Pattern.compile("(?ms)^```yaml\\n(.*?)^```");

  static KubernetesClient client;

  @BeforeAll
  static void installCrds() {
    client = TestCluster.get().newClient();
    Crds.installIoqos(client);
  }

  @AfterAll
  static void disconnect() {
    client.close();
  }

  /** The site's pages, next to the e2e module. */
  static Path siteDir() {
    return Crds.directory().resolveSibling("src").resolve("site").resolve("markdown");
  }

  static Stream<Arguments> documentedPolicies() throws IOException {
    List<Arguments> policies = new ArrayList<>();
    List<Path> pages;
    try (Stream<Path> files = Files.list(siteDir())) {
      pages = files.filter(f -> f.toString().endsWith(".md")).sorted().toList();
    }
    for (Path page : pages) {
      Matcher block = YAML_BLOCK.matcher(Files.readString(page));
      int index = 0;
      while (block.find()) {
        index++;
        for (String document : block.group(1).split("(?m)^---\\s*$")) {
          if (document.contains("kind: IoPolicy")) {
            policies.add(
                Arguments.of(page.getFileName() + " yaml block " + index, document.strip()));
          }
        }
      }
    }
    assertThat(policies).as("IoPolicy examples in %s", siteDir()).hasSizeGreaterThanOrEqualTo(3);
    return policies.stream();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("documentedPolicies")
  void theExampleIsAdmittedAndUsable(String where, String yaml) {
    GenericKubernetesResource example =
        client.getKubernetesSerialization().unmarshal(yaml, GenericKubernetesResource.class);
    String name = "docs-" + example.getMetadata().getName();
    example.getMetadata().setName(name);
    // Enforce examples select real pods: store each one only as long as the check takes.
    try {
      client.resource(example).create();
      IoPolicy stored = client.resources(IoPolicy.class).withName(name).get();
      assertThat(stored).as(where).isNotNull();
      assertThat(stored.getSpec().getTiers()).as(where).isNotEmpty();
      assertThatCode(() -> ApiMapping.rules(stored)).as(where).doesNotThrowAnyException();
      @SuppressWarnings("unchecked")
      Map<String, Object> spec =
          (Map<String, Object>) example.getAdditionalProperties().get("spec");
      assertThat(ApiMapping.rules(stored).tierNames()).as(where).hasSize(tierCount(spec));
    } finally {
      client.resources(IoPolicy.class).withName(name).withTimeout(30, TimeUnit.SECONDS).delete();
    }
  }

  private static int tierCount(Map<String, Object> spec) {
    Object tiers = spec.get("tiers");
    return tiers instanceof List<?> list ? list.size() : 0;
  }
}
