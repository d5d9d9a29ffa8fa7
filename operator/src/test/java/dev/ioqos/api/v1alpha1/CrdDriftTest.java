package dev.ioqos.api.v1alpha1;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Fails when the CRDs checked in under {@code crds/} differ from the ones the generator writes from
 * this package, so the model and the installed schema cannot drift apart.
 */
class CrdDriftTest {
  // Surefire runs in the module directory (operator/).
  private static final Path GENERATED = Path.of("target", "classes", "META-INF", "fabric8");
  private static final Path CHECKED_IN = Path.of("..", "crds");
  private static final String HOW_TO_UPDATE =
      "; regenerate with `crds/update` (from the repository root) and commit crds/";

  @Test
  void checkedInCrdsAreTheGeneratedOnes() throws IOException {
    List<String> generated = crdFiles(GENERATED);
    assertThat(generated)
        .as("CRDs generated into %s (run through Maven: process-classes)", GENERATED)
        .contains("iopolicies.ioqos.dev-v1.yml", "ionodestates.ioqos.dev-v1.yml");
    assertThat(crdFiles(CHECKED_IN))
        .as("CRD files in crds/" + HOW_TO_UPDATE)
        .containsExactlyInAnyOrderElementsOf(generated);

    for (String file : generated) {
      assertThat(normalized(CHECKED_IN.resolve(file)))
          .as("crds/%s differs from the model in dev.ioqos.api" + HOW_TO_UPDATE, file)
          .isEqualTo(normalized(GENERATED.resolve(file)));
    }
  }

  private static List<String> crdFiles(Path dir) throws IOException {
    if (!Files.isDirectory(dir)) {
      return List.of();
    }
    try (Stream<Path> files = Files.list(dir)) {
      return files
          .map(f -> f.getFileName().toString())
          .filter(name -> name.endsWith(".yml"))
          .sorted()
          .toList();
    }
  }

  private static String normalized(Path file) throws IOException {
    return Files.readString(file).replace("\r\n", "\n");
  }
}
