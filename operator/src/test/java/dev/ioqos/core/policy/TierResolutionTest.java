package dev.ioqos.core.policy;

import static dev.ioqos.core.policy.Policies.policy;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ioqos.core.QosClass;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class TierResolutionTest {

  /** Every fallback set, each to its own tier, so the source is visible in the tier name. */
  private static final PolicyRules FULL =
      policy("full")
          .tiers("annotated", "critical", "low", "standard")
          .fromPriorityClass("system-node-critical", "critical")
          .fromQosClass(QosClass.BEST_EFFORT, "low")
          .defaultTier("standard")
          .build();

  private static PodFacts pod(String tierAnnotation, String priorityClass, String qos) {
    return new PodFacts(
        "shop",
        "web-0",
        "uid",
        Map.of(),
        tierAnnotation == null ? Map.of() : Map.of("ioqos.dev/tier", tierAnnotation),
        Map.of(),
        Optional.ofNullable(priorityClass),
        QosClass.parse(qos));
  }

  /** The order: annotation, priority class, QoS class, defaultTier. */
  @ParameterizedTest(name = "[{index}] annotation={0} pc={1} qos={2} -> {3} from {4}")
  @CsvSource(
      nullValues = "-",
      value = {
        "annotated, system-node-critical, BestEffort, annotated, ANNOTATION",
        "-,         system-node-critical, BestEffort, critical,  PRIORITY_CLASS",
        "-,         other-class,          BestEffort, low,       QOS_CLASS",
        "-,         -,                    BestEffort, low,       QOS_CLASS",
        "-,         -,                    Burstable,  standard,  DEFAULT_TIER",
        "-,         '',                   Guaranteed, standard,  DEFAULT_TIER",
        "'',        -,                    Burstable,  standard,  DEFAULT_TIER",
      })
  void triesEachSourceInOrder(
      String annotation, String priorityClass, String qos, String tier, TierSource source) {
    TierResolution resolution = TierResolution.resolve(FULL, pod(annotation, priorityClass, qos));

    assertThat(resolution.tier().map(TierSpec::name)).hasValue(tier);
    assertThat(resolution.source()).isEqualTo(source);
    assertThat(resolution.warnings()).isEmpty();
    assertThat(resolution.managed()).isTrue();
  }

  @Test
  void unknownTierWarnsAndFallsThrough() {
    TierResolution resolution =
        TierResolution.resolve(FULL, pod("gold", "system-node-critical", "Burstable"));

    assertThat(resolution.tier().map(TierSpec::name)).hasValue("critical");
    assertThat(resolution.source()).isEqualTo(TierSource.PRIORITY_CLASS);
    assertThat(resolution.warnings())
        .containsExactly(
            new TierWarning.UnknownTier(
                "full",
                "ioqos.dev/tier",
                "gold",
                List.of("annotated", "critical", "low", "standard")));
    TierWarning warning = resolution.warnings().get(0);
    assertThat(warning.reason()).isEqualTo("UnknownTier");
    assertThat(warning.message())
        .isEqualTo(
            "annotation ioqos.dev/tier=gold names no tier of IoPolicy full (its tiers: annotated,"
                + " critical, low, standard), so the pod is placed as if it had no annotation");
  }

  @Test
  void unknownTierWithoutFallbacksLeavesThePodUnmanagedButStillWarns() {
    PolicyRules bare = policy("bare").tiers("high").build();

    TierResolution resolution = TierResolution.resolve(bare, pod("gold", null, "Burstable"));

    assertThat(resolution.tier()).isEmpty();
    assertThat(resolution.source()).isEqualTo(TierSource.NONE);
    assertThat(resolution.managed()).isFalse();
    assertThat(resolution.warnings())
        .extracting(TierWarning::reason)
        .containsExactly("UnknownTier");
  }

  @Test
  void nothingPlacesThePodWithoutFallbacks() {
    PolicyRules bare = policy("bare").tiers("high").build();

    assertThat(TierResolution.resolve(bare, pod(null, "system-node-critical", "BestEffort")))
        .isEqualTo(TierResolution.NONE);
  }

  @Test
  void annotationValueMatchesExactly() {
    TierResolution resolution = TierResolution.resolve(FULL, pod("Annotated", null, "Burstable"));

    assertThat(resolution.source()).isEqualTo(TierSource.DEFAULT_TIER);
    assertThat(resolution.warnings()).hasSize(1);
  }

  @Test
  void customTierAnnotationIsReadAndTheDefaultOneIgnored() {
    PolicyRules custom =
        policy("custom")
            .tierAnnotation("example.com/io-class")
            .tiers("fast", "slow")
            .defaultTier("slow")
            .build();
    PodFacts both =
        new PodFacts(
            "shop",
            "web-0",
            "uid",
            Map.of(),
            Map.of("example.com/io-class", "fast", "ioqos.dev/tier", "slow"),
            Map.of(),
            Optional.empty(),
            QosClass.BURSTABLE);
    PodFacts onlyDefaultAnnotation = pod("fast", null, "Burstable");

    assertThat(TierResolution.resolve(custom, both).tier().map(TierSpec::name)).hasValue("fast");
    assertThat(TierResolution.resolve(custom, both).source()).isEqualTo(TierSource.ANNOTATION);
    TierResolution ignored = TierResolution.resolve(custom, onlyDefaultAnnotation);
    assertThat(ignored.tier().map(TierSpec::name)).hasValue("slow");
    assertThat(ignored.source()).isEqualTo(TierSource.DEFAULT_TIER);
    assertThat(ignored.warnings()).isEmpty();
  }

  private static PodFacts podIn(String namespace, Map<String, String> namespaceLabels) {
    return new PodFacts(
        namespace,
        "db-0",
        "uid",
        Map.of(),
        Map.of("ioqos.dev/tier", "critical"),
        namespaceLabels,
        Optional.empty(),
        QosClass.BURSTABLE);
  }

  private static final PolicyRules GUARDED =
      policy("guarded")
          .tiers("critical", "standard")
          .defaultTier("standard")
          .annotationNamespaces(
              "critical", LabelSelectorRule.matchLabels(Map.of("ioqos.dev/critical", "allowed")))
          .build();

  @Test
  void aNamespaceTheTierAllowsGetsItByAnnotation() {
    TierResolution resolution =
        TierResolution.resolve(
            GUARDED,
            podIn(
                "db",
                Map.of("kubernetes.io/metadata.name", "db", "ioqos.dev/critical", "allowed")));

    assertThat(resolution.tier().map(TierSpec::name)).hasValue("critical");
    assertThat(resolution.source()).isEqualTo(TierSource.ANNOTATION);
    assertThat(resolution.warnings()).isEmpty();
  }

  @Test
  void anotherNamespaceAskingForTheTierIsPlacedAsIfUnannotatedAndWarned() {
    TierResolution resolution =
        TierResolution.resolve(
            GUARDED, podIn("batch", Map.of("kubernetes.io/metadata.name", "batch")));

    assertThat(resolution.tier().map(TierSpec::name)).hasValue("standard");
    assertThat(resolution.source()).isEqualTo(TierSource.DEFAULT_TIER);
    assertThat(resolution.warnings())
        .singleElement()
        .satisfies(
            w -> {
              assertThat(w.reason()).isEqualTo("TierNotAllowed");
              assertThat(w.message())
                  .isEqualTo(
                      "annotation ioqos.dev/tier=critical names a tier of IoPolicy guarded that pods"
                          + " of namespace batch may not choose (the tier's"
                          + " annotationNamespaceSelector), so the pod is placed as if it had no"
                          + " annotation");
            });
  }

  @Test
  void tiersWithoutASelectorStayOpenToEveryNamespace() {
    PodFacts pod =
        new PodFacts(
            "batch",
            "job-0",
            "uid",
            Map.of(),
            Map.of("ioqos.dev/tier", "standard"),
            Map.of("kubernetes.io/metadata.name", "batch"),
            Optional.empty(),
            QosClass.BURSTABLE);

    TierResolution resolution = TierResolution.resolve(GUARDED, pod);

    assertThat(resolution.source()).isEqualTo(TierSource.ANNOTATION);
    assertThat(resolution.tier().map(TierSpec::name)).hasValue("standard");
  }
}
