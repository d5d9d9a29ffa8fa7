package dev.ioqos.api;

import dev.ioqos.api.v1alpha1.DeviceSelector;
import dev.ioqos.api.v1alpha1.IoPolicy;
import dev.ioqos.api.v1alpha1.IoPolicySpec;
import dev.ioqos.api.v1alpha1.PolicyMode;
import dev.ioqos.api.v1alpha1.Tier;
import dev.ioqos.api.v1alpha1.TierLimits;
import dev.ioqos.core.IoLimits;
import dev.ioqos.core.QosClass;
import dev.ioqos.core.policy.DeviceSelectorRule;
import dev.ioqos.core.policy.LabelSelectorRule;
import dev.ioqos.core.policy.NodeFacts;
import dev.ioqos.core.policy.PodFacts;
import dev.ioqos.core.policy.PodVolume;
import dev.ioqos.core.policy.PolicyRules;
import dev.ioqos.core.policy.TierSpec;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorRequirement;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Volume;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.function.Consumer;

/** Turns Kubernetes objects into the core's facts and rules; the only place that knows both. */
public final class ApiMapping {
  private ApiMapping() {}

  /**
   * The policy's rules.
   *
   * @throws UnusablePolicyException naming the field when the object passed admission but still
   *     cannot be used (e.g. an operator the schema does not restrict), or had no admission
   */
  public static PolicyRules rules(IoPolicy policy) {
    String name = policy.getMetadata() == null ? null : policy.getMetadata().getName();
    if (name == null || name.isBlank()) {
      throw new UnusablePolicyException("(no name)", "metadata.name is missing", null);
    }
    try {
      return rulesOf(policy);
    } catch (RuntimeException e) {
      String problem = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
      throw new UnusablePolicyException(name, problem, e);
    }
  }

  /**
   * The rules of every usable policy; each one that cannot be used is handed to {@code unusable}
   * and left out, never a crash.
   */
  public static List<PolicyRules> usableRules(
      Collection<IoPolicy> policies, Consumer<UnusablePolicyException> unusable) {
    List<PolicyRules> rules = new ArrayList<>();
    for (IoPolicy policy : policies) {
      try {
        rules.add(rules(policy));
      } catch (UnusablePolicyException e) {
        unusable.accept(e);
      }
    }
    return rules;
  }

  private static PolicyRules rulesOf(IoPolicy policy) {
    IoPolicySpec spec = policy.getSpec();
    if (spec == null) {
      throw new IllegalArgumentException("spec is missing");
    }
    Map<QosClass, String> byQos = new LinkedHashMap<>();
    Map<String, String> byPriorityClass = Map.of();
    if (spec.getTierFrom() != null) {
      if (spec.getTierFrom().getQosClasses() != null) {
        spec.getTierFrom()
            .getQosClasses()
            .forEach((qos, tier) -> byQos.put(QosClass.parse(qos), tier));
      }
      if (spec.getTierFrom().getPriorityClasses() != null) {
        byPriorityClass = spec.getTierFrom().getPriorityClasses();
      }
    }
    List<TierSpec> tiers = new ArrayList<>();
    Map<String, LabelSelectorRule> annotationNamespaces = new HashMap<>();
    for (int i = 0; i < spec.getTiers().size(); i++) {
      Tier tier = spec.getTiers().get(i);
      tiers.add(tier(tier));
      if (tier.getAnnotationNamespaceSelector() != null) {
        annotationNamespaces.put(
            tier.getName(),
            selector(
                "spec.tiers[" + i + "].annotationNamespaceSelector",
                tier.getAnnotationNamespaceSelector()));
      }
    }
    List<DeviceSelectorRule> devices = new ArrayList<>();
    if (spec.getDevices() != null) {
      for (DeviceSelector device : spec.getDevices()) {
        devices.add(device(device));
      }
    }
    return new PolicyRules(
        policy.getMetadata().getName(),
        Optional.ofNullable(policy.getMetadata().getGeneration()).orElse(0L),
        spec.getPriority(),
        selector("spec.nodeSelector", spec.getNodeSelector()),
        selector("spec.namespaceSelector", spec.getNamespaceSelector()),
        selector("spec.podSelector", spec.getPodSelector()),
        spec.getTierAnnotation() == null
            ? PolicyRules.DEFAULT_TIER_ANNOTATION
            : spec.getTierAnnotation(),
        Optional.ofNullable(spec.getDefaultTier()),
        byPriorityClass,
        byQos,
        devices,
        tiers,
        spec.getMode() == PolicyMode.DRY_RUN ? PolicyRules.Mode.DRY_RUN : PolicyRules.Mode.ENFORCE,
        annotationNamespaces);
  }

  static TierSpec tier(Tier tier) {
    TierLimits limits = tier.getLimits();
    IoLimits ioLimits =
        limits == null
            ? IoLimits.NONE
            : new IoLimits(
                limits.readBytesPerSecondValue(),
                limits.writeBytesPerSecondValue(),
                optional(limits.getReadIOPS()),
                optional(limits.getWriteIOPS()));
    return new TierSpec(
        tier.getName(),
        tier.getWeight() == null ? OptionalInt.empty() : OptionalInt.of(tier.getWeight()),
        ioLimits,
        tier.latencyTargetMicros());
  }

  static DeviceSelectorRule device(DeviceSelector device) {
    if (device.getPath() != null) {
      return new DeviceSelectorRule.HostPath(device.getPath());
    }
    if (device.getName() != null) {
      return new DeviceSelectorRule.DeviceName(device.getName());
    }
    if (device.getPodVolumes() != null) {
      List<String> names = device.getPodVolumes().getNames();
      return new DeviceSelectorRule.PodVolumes(names == null ? List.of() : names);
    }
    return new DeviceSelectorRule.KubeletRoot();
  }

  static LabelSelectorRule selector(String field, LabelSelector selector) {
    if (selector == null) {
      return LabelSelectorRule.EVERYTHING;
    }
    List<LabelSelectorRule.Requirement> requirements = new ArrayList<>();
    if (selector.getMatchExpressions() != null) {
      for (LabelSelectorRequirement expression : selector.getMatchExpressions()) {
        try {
          requirements.add(
              new LabelSelectorRule.Requirement(
                  expression.getKey(),
                  LabelSelectorRule.Operator.parse(expression.getOperator()),
                  expression.getValues() == null ? List.of() : expression.getValues()));
        } catch (IllegalArgumentException e) {
          throw new IllegalArgumentException(field + ".matchExpressions: " + e.getMessage(), e);
        }
      }
    }
    return new LabelSelectorRule(
        selector.getMatchLabels() == null ? Map.of() : selector.getMatchLabels(), requirements);
  }

  /** The pod's facts with no claim known to be bound (see the three-argument form). */
  public static PodFacts pod(Pod pod, Namespace namespace) {
    return pod(pod, namespace, ClaimLookup.NONE);
  }

  /**
   * The pod's facts, its volumes included; {@code namespace} may be null while the namespace
   * informer catches up; {@code claims} finds the PV each claim is bound to.
   */
  public static PodFacts pod(Pod pod, Namespace namespace, ClaimLookup claims) {
    var meta = pod.getMetadata();
    String qos = pod.getStatus() == null ? null : pod.getStatus().getQosClass();
    return new PodFacts(
        meta.getNamespace(),
        meta.getName(),
        meta.getUid(),
        orEmpty(meta.getLabels()),
        orEmpty(meta.getAnnotations()),
        namespace == null ? Map.of() : orEmpty(namespace.getMetadata().getLabels()),
        Optional.ofNullable(pod.getSpec().getPriorityClassName()),
        qos == null ? QosClass.BEST_EFFORT : QosClass.parse(qos),
        volumes(pod, claims));
  }

  /** The pod's {@code spec.volumes}, each reduced to what says where its data lives. */
  static List<PodVolume> volumes(Pod pod, ClaimLookup claims) {
    PodSpec spec = pod.getSpec();
    if (spec == null || spec.getVolumes() == null) {
      return List.of();
    }
    Set<String> blockDevices = new HashSet<>();
    List<Container> containers = new ArrayList<>();
    Optional.ofNullable(spec.getContainers()).ifPresent(containers::addAll);
    Optional.ofNullable(spec.getInitContainers()).ifPresent(containers::addAll);
    for (Container container : containers) {
      if (container.getVolumeDevices() != null) {
        container.getVolumeDevices().forEach(device -> blockDevices.add(device.getName()));
      }
    }
    var meta = pod.getMetadata();
    List<PodVolume> volumes = new ArrayList<>();
    for (Volume volume : spec.getVolumes()) {
      String name = volume.getName();
      if (name == null || name.isBlank()) {
        continue;
      }
      volumes.add(new PodVolume(name, source(volume, meta, claims, blockDevices.contains(name))));
    }
    return volumes;
  }

  private static PodVolume.Source source(
      Volume volume, ObjectMeta meta, ClaimLookup claims, boolean block) {
    if (volume.getEmptyDir() != null) {
      return new PodVolume.EmptyDir("Memory".equals(volume.getEmptyDir().getMedium()));
    }
    if (volume.getHostPath() != null && volume.getHostPath().getPath() != null) {
      return new PodVolume.HostPath(volume.getHostPath().getPath());
    }
    String claim = null;
    if (volume.getPersistentVolumeClaim() != null) {
      claim = volume.getPersistentVolumeClaim().getClaimName();
    } else if (volume.getEphemeral() != null) {
      // A generic ephemeral volume's claim is named <pod>-<volume> by the ephemeral controller.
      claim = meta.getName() + "-" + volume.getName();
    }
    if (claim != null && !claim.isBlank()) {
      return new PodVolume.Claim(
          claim, claims.boundVolume(meta.getUid(), meta.getNamespace(), claim), block);
    }
    if (volume.getConfigMap() != null) {
      return new PodVolume.ApiData("configMap");
    }
    if (volume.getSecret() != null) {
      return new PodVolume.ApiData("secret");
    }
    if (volume.getProjected() != null) {
      return new PodVolume.ApiData("projected");
    }
    if (volume.getDownwardAPI() != null) {
      return new PodVolume.ApiData("downwardAPI");
    }
    if (volume.getCsi() != null) {
      return new PodVolume.Mounted("csi " + volume.getCsi().getDriver());
    }
    if (volume.getNfs() != null) {
      return new PodVolume.Mounted("nfs");
    }
    return new PodVolume.Mounted("volume");
  }

  public static NodeFacts node(String nodeName, Node node) {
    return new NodeFacts(
        nodeName, node == null ? Map.of() : orEmpty(node.getMetadata().getLabels()));
  }

  private static java.util.OptionalLong optional(Long value) {
    return value == null ? java.util.OptionalLong.empty() : java.util.OptionalLong.of(value);
  }

  private static Map<String, String> orEmpty(Map<String, String> map) {
    return map == null ? Map.of() : map;
  }
}
