package dev.ioqos.metrics;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/** Data flows one way (DESIGN.md): the agent reports to metrics, metrics never call back. */
class MetricsLayeringTest {
  @Test
  void metricsKnowNeitherTheAgentNorKubernetes() {
    noClasses()
        .that()
        .resideInAPackage("dev.ioqos.metrics..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "dev.ioqos.agent..", "dev.ioqos.cli..", "io.fabric8..", "io.javaoperatorsdk..")
        .check(
            new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("dev.ioqos.metrics"));
  }
}
