package dev.ioqos.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Keeps the layering of DESIGN.md, every rule in one place: values free of Kubernetes and of the
 * filesystem, the node machinery free of Kubernetes, the two processes (agent, aggregator) apart,
 * data flowing one way into metrics.
 */
class LayeringTest {
  static JavaClasses classes;

  @BeforeAll
  static void importClasses() {
    classes =
        new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.ioqos");
  }

  @Test
  void coreUsesNeitherKubernetesNorTheFilesystem() {
    noClasses()
        .that()
        .resideInAPackage("dev.ioqos.core..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "io.fabric8..", "io.javaoperatorsdk..", "java.nio.file..", "java.nio.channels..")
        .orShould()
        .dependOnClassesThat()
        .haveNameMatching("java\\.io\\.File.*")
        .because("core holds pure values and decisions (DESIGN.md, layout)")
        .check(classes);
  }

  @Test
  void nodeEngineDoesNotKnowKubernetes() {
    noClasses()
        .that()
        .resideInAnyPackage("dev.ioqos.cgroup..", "dev.ioqos.device..", "dev.ioqos.probe..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("io.fabric8..", "io.javaoperatorsdk..", "dev.ioqos.cli..")
        .check(classes);
  }

  @Test
  void theNodeMachineryDoesNotKnowKubernetesNorTheProcessesAroundIt() {
    noClasses()
        .that()
        .resideInAPackage("dev.ioqos.node..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "io.fabric8..",
            "io.javaoperatorsdk..",
            "dev.ioqos.api..",
            "dev.ioqos.agent..",
            "dev.ioqos.aggregator..",
            "dev.ioqos.metrics..",
            "dev.ioqos.cli..")
        .because(
            "the pod pass, ledger and engine run the same in the agent, ioqos reconcile and explain"
                + " (DESIGN.md, layout)")
        .check(classes);
  }

  @Test
  void theAgentAndTheAggregatorNeverImportEachOther() {
    noClasses()
        .that()
        .resideInAPackage("dev.ioqos.agent..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("dev.ioqos.aggregator..")
        .check(classes);
    noClasses()
        .that()
        .resideInAPackage("dev.ioqos.aggregator..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("dev.ioqos.agent..", "dev.ioqos.node..")
        .check(classes);
  }

  @Test
  void metricsKnowNeitherTheAgentNorKubernetes() {
    noClasses()
        .that()
        .resideInAPackage("dev.ioqos.metrics..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "dev.ioqos.agent..",
            "dev.ioqos.aggregator..",
            "dev.ioqos.cli..",
            "io.fabric8..",
            "io.javaoperatorsdk..")
        .because("data flows one way: the agent reports to metrics, metrics never call back")
        .check(classes);
  }

  @Test
  void onlyTheCommandLineNamesHostPaths() {
    noClasses()
        .that()
        .resideOutsideOfPackage("dev.ioqos.cli..")
        .should()
        .callMethod(java.nio.file.Path.class, "of", String.class, String[].class)
        .orShould()
        .callMethod(java.nio.file.Paths.class, "get", String.class, String[].class)
        .orShould()
        .callConstructor(java.io.File.class, String.class)
        .because("every filesystem-facing method below the command line takes a root Path")
        .check(classes);
  }
}
