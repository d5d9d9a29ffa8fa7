package dev.ioqos.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The jar carries the checked-in CRDs, unchanged, one per API type. */
class IoqosCrdsTest {
  static final Path CRDS = Paths.get(System.getProperty("user.dir")).resolve("../crds").normalize();

  @Test
  void everyApiTypeHasItsCheckedInCrdAsAResource() throws Exception {
    for (Class<? extends HasMetadata> type : IoqosCrds.TYPES) {
      String resource = IoqosCrds.resource(type);
      try (InputStream in = IoqosCrds.class.getResourceAsStream(resource)) {
        assertThat(in).as(resource).isNotNull();
        String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        Path file = CRDS.resolve(Paths.get(resource).getFileName().toString());
        assertThat(text).as("same as " + file).isEqualTo(Files.readString(file));
        CustomResourceDefinition crd =
            Serialization.unmarshal(text, CustomResourceDefinition.class);
        assertThat(crd.getMetadata().getName()).isEqualTo(HasMetadata.getFullResourceName(type));
      }
    }
  }

  @Test
  void everyCheckedInCrdIsInstalled() throws Exception {
    try (Stream<Path> files = Files.list(CRDS)) {
      assertThat(files.map(f -> f.getFileName().toString()).filter(n -> n.endsWith(".yml")))
          .containsExactlyInAnyOrderElementsOf(
              IoqosCrds.TYPES.stream()
                  .map(t -> Paths.get(IoqosCrds.resource(t)).getFileName().toString())
                  .toList());
    }
  }
}
