package dev.ioqos.demo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ioqos.docs.DocsCoverageTest;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The demo jar's command and options are documented in the site, as the product's are. */
class DemoDocsTest {
  @Test
  void theDemoCommandAndEveryOptionIsInTheSite() {
    CommandLine demo = new CommandLine(new DemoMain());
    assertThat(demo.getSubcommands()).containsOnlyKeys("demo");

    assertThat(DocsCoverageTest.undocumented(demo))
        .as("options (as `--option`) documented nowhere in src/site/markdown")
        .isEmpty();
  }
}
