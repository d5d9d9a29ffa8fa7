package dev.ioqos.core.policy;

import dev.ioqos.core.QosClass;
import dev.ioqos.core.WeightRange;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalDouble;

/**
 * The weights of kubelet's two QoS slices that make a pod's tier weight mean the same share of a
 * disk wherever kubelet placed the pod.
 *
 * <p><b>The problem.</b> io.weight (iocost) and io.bfq.weight (bfq) divide a disk among siblings
 * only, level by level: a cgroup's share is its weight over the weights of its active siblings,
 * times its parent's share. kubelet puts a Guaranteed pod directly under {@code kubepods}, next to
 * the {@code burstable} and {@code besteffort} slices, which hold the other pods. With the slices
 * at their default 100, a BestEffort pod of weight 800 alone in its slice competes through a 100
 * against a Guaranteed pod's 100: 1:1, not 8:1.
 *
 * <p><b>The scheme.</b> Per weight mechanism (each has its own file and range), each slice gets the
 * sum of the weights of its <em>active</em> pods (pods with I/O on a disk of that mechanism). Then
 * at the kubepods level the children weigh {@code w(g)} for each active Guaranteed pod g and {@code
 * S(b) = sum of w(p)} over the active pods p of slice b, so pod p in slice b gets {@code S(b) / T *
 * w(p) / S(b) = w(p) / T}, T being the sum of the weights of all active pods of the node: exactly
 * its weight over the total, as if every pod were a sibling. Guaranteed pods keep their own weight
 * (written by the pod pass); only the two slices are written, and nothing else at the kubepods
 * level exists in kubelet's layout.
 *
 * <p><b>Why active pods only.</b> Both iocost and bfq hand out shares among the children that have
 * I/O in flight; an idle cgroup drops out of the division. A slice weight that also counted idle
 * pods would give the slice's active pods the idle ones' share: a Burstable pod of weight 100 next
 * to nine idle Burstable pods of 800 would weigh 7300 against an active Guaranteed 800, 90% of the
 * disk instead of 11%. Counting only active pods keeps the shares exact for the pods that compete;
 * the cost is that a pod that becomes active between two passes competes through a slice weight
 * that does not count it until the next pass (the agent's resync; it then gets more, never less,
 * than its own weight allows its slice-mates).
 *
 * <p><b>Ranges.</b> A sum can exceed the file's maximum (10000 for io.weight; 1000 for
 * io.bfq.weight, i.e. eleven pods of the default weight). Then every kubepods-level child is scaled
 * by the same factor {@code max / largest sum}, rounded, never below 1: the slices' targets, and
 * the weights the Guaranteed pods would need ({@link Plan#guaranteedTargets}), which this scheme
 * cannot impose because the pod pass owns them: with active Guaranteed pods the plan is then marked
 * not {@link Plan#exact}, and its shares ({@link #share}) say by how much.
 *
 * <p><b>Empty slices.</b> A slice with no active pod takes no part in the division: it gets its
 * original value back ({@link WeightRange#DEFAULT} when none was recorded).
 *
 * <p><b>No mechanism.</b> On a disk where weights are not enforced nothing is written, and the plan
 * says why ({@link Plan#notEnforced}).
 */
public final class QosSliceScheme {

  /** The two slices kubelet makes under kubepods; Guaranteed pods have none. */
  public static final List<QosClass> SLICES = List.of(QosClass.BURSTABLE, QosClass.BEST_EFFORT);

  static final String NOT_ENFORCED =
      "weights are not enforced on this node's disks (neither iocost nor bfq): slice weights not"
          + " written";

  private QosSliceScheme() {}

  /**
   * One pod of the node for one weight mechanism.
   *
   * @param weight the weight its cgroup holds in the mechanism's file (a tier's, or the default 100
   *     for pods no tier manages)
   * @param active whether it has I/O on a disk of the mechanism
   */
  public record Pod(String uid, QosClass qos, int weight, boolean active) {
    public Pod {
      Immutables.text(uid, "uid");
      Objects.requireNonNull(qos, "qos");
      if (weight < 1) {
        throw new IllegalArgumentException("weight " + weight + " of pod " + uid + " below 1");
      }
    }
  }

  /** Why a slice gets its target. */
  public enum Basis {
    /** The sum of its active pods' weights. */
    POD_SUM,
    /** The sum, scaled down with every kubepods-level child to fit the file's range. */
    SCALED,
    /** No active pod in it: its original value. */
    ORIGINAL
  }

  /**
   * One slice's target.
   *
   * @param sum the sum of its active pods' weights (0 when none)
   */
  public record SliceTarget(QosClass slice, int weight, long sum, Basis basis) {}

  /**
   * The slice weights for one mechanism.
   *
   * @param range the file and range the weights are in; empty when nothing enforces weights
   * @param slices burstable and besteffort, in that order; empty when {@link #notEnforced}
   * @param guaranteedTargets the weight each active Guaranteed pod would need for exact shares (its
   *     own unless the sums were scaled)
   * @param scale the factor applied to every kubepods-level child (1 when the sums fit)
   * @param exact false when the shares differ from weight over total (Guaranteed pods not scaled)
   * @param notEnforced why nothing is written
   */
  public record Plan(
      WeightMechanism mechanism,
      Optional<WeightRange> range,
      List<SliceTarget> slices,
      Map<String, Integer> guaranteedTargets,
      double scale,
      boolean exact,
      Optional<String> notEnforced) {
    public Plan {
      slices = List.copyOf(slices);
      guaranteedTargets =
          java.util.Collections.unmodifiableMap(new LinkedHashMap<>(guaranteedTargets));
    }

    /** The target of one slice. */
    public Optional<SliceTarget> slice(QosClass qos) {
      return slices.stream().filter(s -> s.slice() == qos).findFirst();
    }

    /** The slice weights as a map (empty when not enforced). */
    public Map<QosClass, Integer> weights() {
      Map<QosClass, Integer> weights = new EnumMap<>(QosClass.class);
      slices.forEach(s -> weights.put(s.slice(), s.weight()));
      return weights;
    }
  }

  /** The file and range a mechanism's weights live in; empty for {@link WeightMechanism#NONE}. */
  public static Optional<WeightRange> range(WeightMechanism mechanism) {
    return switch (mechanism) {
      case IOCOST -> Optional.of(WeightRange.IO_WEIGHT);
      case BFQ -> Optional.of(WeightRange.BFQ_WEIGHT);
      case NONE -> Optional.empty();
    };
  }

  /**
   * Plans the slice weights of one mechanism.
   *
   * @param pods every pod of the node (active or not, in any QoS class)
   * @param originals each slice's value before ioqos first wrote it; a missing slice is taken as
   *     {@link WeightRange#DEFAULT}
   */
  public static Plan plan(
      WeightMechanism mechanism, List<Pod> pods, Map<QosClass, Integer> originals) {
    Objects.requireNonNull(mechanism, "mechanism");
    Optional<WeightRange> range = range(mechanism);
    if (range.isEmpty()) {
      return new Plan(mechanism, range, List.of(), Map.of(), 1.0, true, Optional.of(NOT_ENFORCED));
    }
    int max = range.get().max();
    Map<QosClass, Long> sums = new EnumMap<>(QosClass.class);
    SLICES.forEach(slice -> sums.put(slice, 0L));
    Map<String, Integer> guaranteed = new LinkedHashMap<>();
    for (Pod pod : pods) {
      if (!pod.active()) {
        continue;
      }
      int weight = range.get().check(pod.weight());
      if (pod.qos() == QosClass.GUARANTEED) {
        guaranteed.put(pod.uid(), weight);
      } else {
        sums.merge(pod.qos(), (long) weight, Long::sum);
      }
    }
    long largest = sums.values().stream().mapToLong(Long::longValue).max().orElse(0);
    double scale = largest > max ? (double) max / largest : 1.0;
    List<SliceTarget> targets = new ArrayList<>();
    for (QosClass slice : SLICES) {
      long sum = sums.get(slice);
      if (sum == 0) {
        int original = originals.getOrDefault(slice, WeightRange.DEFAULT);
        targets.add(new SliceTarget(slice, range.get().check(original), 0, Basis.ORIGINAL));
      } else if (scale < 1.0) {
        targets.add(new SliceTarget(slice, scaled(sum, scale, max), sum, Basis.SCALED));
      } else {
        targets.add(new SliceTarget(slice, (int) sum, sum, Basis.POD_SUM));
      }
    }
    Map<String, Integer> guaranteedTargets = new LinkedHashMap<>();
    guaranteed.forEach((uid, weight) -> guaranteedTargets.put(uid, scaled(weight, scale, max)));
    boolean exact = scale == 1.0 || guaranteed.isEmpty();
    return new Plan(mechanism, range, targets, guaranteedTargets, scale, exact, Optional.empty());
  }

  private static int scaled(long weight, double scale, int max) {
    return (int) Math.max(1, Math.min(max, Math.round(weight * scale)));
  }

  /**
   * The share of the disk pod {@code uid} gets while it is active next to the other active pods,
   * with the slices at {@code sliceWeights} (a slice missing from the map weighs {@link
   * WeightRange#DEFAULT}), the Guaranteed pods at their own weight: the product, level by level, of
   * each cgroup's weight over its active siblings' (the pod counts as active). Empty when the pod
   * is not among {@code pods}.
   */
  public static OptionalDouble share(
      String uid, List<Pod> pods, Map<QosClass, Integer> sliceWeights) {
    Pod self = pods.stream().filter(p -> p.uid().equals(uid)).findFirst().orElse(null);
    if (self == null) {
      return OptionalDouble.empty();
    }
    Map<QosClass, Long> sliceSums = new EnumMap<>(QosClass.class);
    double kubepodsLevel = 0;
    for (Pod pod : pods) {
      if (!pod.active() && pod != self) {
        continue;
      }
      if (pod.qos() == QosClass.GUARANTEED) {
        kubepodsLevel += pod.weight();
      } else {
        sliceSums.merge(pod.qos(), (long) pod.weight(), Long::sum);
      }
    }
    for (QosClass slice : sliceSums.keySet()) {
      kubepodsLevel += sliceWeights.getOrDefault(slice, WeightRange.DEFAULT);
    }
    if (self.qos() == QosClass.GUARANTEED) {
      return OptionalDouble.of(self.weight() / kubepodsLevel);
    }
    double sliceShare = sliceWeights.getOrDefault(self.qos(), WeightRange.DEFAULT) / kubepodsLevel;
    return OptionalDouble.of(sliceShare * self.weight() / sliceSums.get(self.qos()));
  }

  /** The share pod {@code uid} is meant to get: its weight over the active pods' total. */
  public static OptionalDouble intendedShare(String uid, List<Pod> pods) {
    Pod self = pods.stream().filter(p -> p.uid().equals(uid)).findFirst().orElse(null);
    if (self == null) {
      return OptionalDouble.empty();
    }
    long total = self.active() ? 0 : self.weight();
    for (Pod pod : pods) {
      if (pod.active()) {
        total += pod.weight();
      }
    }
    return OptionalDouble.of((double) self.weight() / total);
  }
}
