package dev.ioqos.core.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.ioqos.core.QosClass;
import dev.ioqos.core.WeightRange;
import dev.ioqos.core.policy.QosSliceScheme.Basis;
import dev.ioqos.core.policy.QosSliceScheme.Plan;
import dev.ioqos.core.policy.QosSliceScheme.Pod;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class QosSliceSchemeTest {

  /**
   * Pods as {@code NAME:CLASS:WEIGHT:STATE} separated by spaces, CLASS g|b|be, STATE a (has I/O) or
   * i (idle); originals as {@code b=N be=N} ("-" for none); expected slice weights and bases.
   */
  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          # case                                   | mech   | pods                                      | originals    | burstable | b basis  | besteffort | be basis | exact
          BestEffort high next to Guaranteed low   | IOCOST | hi:be:800:a lo:g:100:a                    | -            | 100       | ORIGINAL | 800        | POD_SUM  | true
          two Burstable pods and a Guaranteed one  | IOCOST | a:b:500:a b:b:100:a g:g:100:a             | -            | 600       | POD_SUM  | 100        | ORIGINAL | true
          a pod arrives in besteffort              | IOCOST | a:b:500:a b:b:100:a g:g:100:a c:be:10:a   | -            | 600       | POD_SUM  | 10         | POD_SUM  | true
          the Burstable pod leaves                 | IOCOST | b:b:100:a g:g:100:a c:be:10:a             | -            | 100       | POD_SUM  | 10         | POD_SUM  | true
          pods with no I/O do not count            | IOCOST | a:b:500:i b:b:100:a g:g:100:a c:be:800:i  | -            | 100       | POD_SUM  | 100        | ORIGINAL | true
          emptied slice gets its original back     | IOCOST | a:b:500:i c:be:800:a                      | b=250 be=50  | 250       | ORIGINAL | 800        | POD_SUM  | true
          no pod at all                            | IOCOST |                                           | b=300        | 300       | ORIGINAL | 100        | ORIGINAL | true
          sum above 10000 scales both slices       | IOCOST | a:b:8000:a b:b:6000:a c:be:7000:a         | -            | 10000     | SCALED   | 5000       | SCALED   | true
          scaled with a Guaranteed pod: not exact  | IOCOST | a:b:8000:a b:b:6000:a g:g:1000:a          | -            | 10000     | SCALED   | 100        | ORIGINAL | false
          scaling never goes below 1               | IOCOST | a:b:10000:a b:b:10000:a c:be:1:a          | -            | 10000     | SCALED   | 1          | SCALED   | true
          bfq: eleven default pods exceed 1000     | BFQ    | 1:b:100:a 2:b:100:a 3:b:100:a 4:b:100:a 5:b:100:a 6:b:100:a 7:b:100:a 8:b:100:a 9:b:100:a 10:b:100:a 11:b:100:a c:be:550:a | - | 1000 | SCALED | 500 | SCALED | true
          bfq: tier weights in bfq's scale         | BFQ    | hi:be:170:a lo:g:100:a m:b:100:a          | -            | 100       | POD_SUM  | 170        | POD_SUM  | true
          """)
  void slicesFollowTheirActivePods(
      String name,
      WeightMechanism mechanism,
      String pods,
      String originals,
      int burstable,
      Basis burstableBasis,
      int bestEffort,
      Basis bestEffortBasis,
      boolean exact) {
    List<Pod> node = pods(pods);
    Plan plan = QosSliceScheme.plan(mechanism, node, originals(originals));

    assertThat(plan.notEnforced()).isEmpty();
    assertThat(plan.slice(QosClass.BURSTABLE).get().weight()).isEqualTo(burstable);
    assertThat(plan.slice(QosClass.BURSTABLE).get().basis()).isEqualTo(burstableBasis);
    assertThat(plan.slice(QosClass.BEST_EFFORT).get().weight()).isEqualTo(bestEffort);
    assertThat(plan.slice(QosClass.BEST_EFFORT).get().basis()).isEqualTo(bestEffortBasis);
    assertThat(plan.exact()).isEqualTo(exact);
    if (exact && plan.scale() == 1.0) {
      // The point of the scheme: every active pod's hierarchical share is its weight over the
      // total of the active pods.
      for (Pod pod : node) {
        if (pod.active()) {
          assertThat(QosSliceScheme.share(pod.uid(), node, plan.weights()).getAsDouble())
              .as(pod.uid())
              .isCloseTo(QosSliceScheme.intendedShare(pod.uid(), node).getAsDouble(), within(1e-9));
        }
      }
    }
  }

  @Test
  void withoutSliceManagementAPodsShareDependsOnItsClass() {
    List<Pod> node = pods("hi:be:800:a lo:g:100:a");
    Map<QosClass, Integer> untouched = Map.of();

    // The measurement: 0.99:1 where the policy says 8:1.
    assertThat(QosSliceScheme.share("hi", node, untouched).getAsDouble()).isEqualTo(0.5);
    assertThat(QosSliceScheme.share("lo", node, untouched).getAsDouble()).isEqualTo(0.5);

    Map<QosClass, Integer> managed =
        QosSliceScheme.plan(WeightMechanism.IOCOST, node, Map.of()).weights();
    assertThat(QosSliceScheme.share("hi", node, managed).getAsDouble())
        .isCloseTo(800.0 / 900, within(1e-9));
    assertThat(QosSliceScheme.share("lo", node, managed).getAsDouble())
        .isCloseTo(100.0 / 900, within(1e-9));
  }

  @Test
  void aScaledPlanNamesTheWeightsGuaranteedPodsWouldNeed() {
    Plan plan =
        QosSliceScheme.plan(
            WeightMechanism.IOCOST, pods("a:b:8000:a b:b:6000:a g:g:1400:a"), Map.of());

    assertThat(plan.scale()).isCloseTo(10000.0 / 14000, within(1e-9));
    assertThat(plan.guaranteedTargets()).containsExactly(Map.entry("g", 1000));
    assertThat(plan.exact()).isFalse();
  }

  @Test
  void noWeightMechanismWritesNothingAndSaysWhy() {
    Plan plan = QosSliceScheme.plan(WeightMechanism.NONE, pods("hi:be:800:a lo:g:100:a"), Map.of());

    assertThat(plan.slices()).isEmpty();
    assertThat(plan.range()).isEmpty();
    assertThat(plan.notEnforced()).contains(QosSliceScheme.NOT_ENFORCED);
  }

  @Test
  void anIdlePodsShareIsTheOneItWouldGetOnceActive() {
    List<Pod> node = pods("a:b:300:i g:g:100:a");
    Map<QosClass, Integer> weights =
        QosSliceScheme.plan(WeightMechanism.IOCOST, node, Map.of()).weights();

    // The slice is idle, so it holds its original 100: the idle pod would get 100/200 at first.
    assertThat(weights).containsEntry(QosClass.BURSTABLE, WeightRange.DEFAULT);
    assertThat(QosSliceScheme.share("a", node, weights).getAsDouble()).isEqualTo(0.5);
    assertThat(QosSliceScheme.intendedShare("a", node).getAsDouble()).isEqualTo(0.75);
    assertThat(QosSliceScheme.share("nobody", node, weights)).isEmpty();
  }

  static List<Pod> pods(String spec) {
    List<Pod> pods = new ArrayList<>();
    if (spec == null || spec.isBlank()) {
      return pods;
    }
    for (String token : spec.trim().split("\\s+")) {
      String[] parts = token.split(":");
      QosClass qos =
          switch (parts[1]) {
            case "g" -> QosClass.GUARANTEED;
            case "b" -> QosClass.BURSTABLE;
            case "be" -> QosClass.BEST_EFFORT;
            default -> throw new IllegalArgumentException(token);
          };
      pods.add(new Pod(parts[0], qos, Integer.parseInt(parts[2]), parts[3].equals("a")));
    }
    return pods;
  }

  private static Map<QosClass, Integer> originals(String spec) {
    Map<QosClass, Integer> originals = new EnumMap<>(QosClass.class);
    if (spec == null || spec.isBlank() || spec.equals("-")) {
      return originals;
    }
    for (String token : spec.trim().split("\\s+")) {
      String[] parts = token.split("=");
      originals.put(
          parts[0].equals("b") ? QosClass.BURSTABLE : QosClass.BEST_EFFORT,
          Integer.parseInt(parts[1]));
    }
    return originals;
  }
}
