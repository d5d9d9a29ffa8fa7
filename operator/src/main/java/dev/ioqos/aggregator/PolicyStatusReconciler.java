package dev.ioqos.aggregator;

import dev.ioqos.api.ApiMapping;
import dev.ioqos.api.UnusablePolicyException;
import dev.ioqos.api.v1alpha1.IoNodeState;
import dev.ioqos.api.v1alpha1.IoPolicy;
import dev.ioqos.api.v1alpha1.IoPolicyStatus;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

/**
 * IoPolicies are the primaries, IoNodeStates a secondary informer whose every change concerns every
 * policy. Thin: it reads the node states from the informer's cache, lets {@link PolicyStatusFold}
 * compute the status and hands it to the {@link Writer} only when it differs from the current one
 * (lastTransitionTime aside), so a steady cluster costs no writes.
 */
@ControllerConfiguration(name = "ioqos-policy-status")
public final class PolicyStatusReconciler implements Reconciler<IoPolicy> {

  /**
   * Writes a policy's status through the status subresource and returns the resourceVersion the API
   * server answered with; empty when it wrote nothing (not the leader).
   */
  @FunctionalInterface
  public interface Writer {
    Optional<String> writeStatus(IoPolicy policy, IoPolicyStatus status);
  }

  /** The status last written, with the resourceVersions before and after the write. */
  private record Written(String before, String after, IoPolicyStatus status) {}

  private final Writer writer;
  private final Clock clock;
  private final Map<String, Written> written = new ConcurrentHashMap<>();
  private InformerEventSource<IoNodeState, IoPolicy> nodeStates;
  private EventSourceContext<IoPolicy> policies;

  public PolicyStatusReconciler(Writer writer, Clock clock) {
    this.writer = writer;
    this.clock = clock;
  }

  @Override
  public List<EventSource<?, IoPolicy>> prepareEventSources(EventSourceContext<IoPolicy> context) {
    policies = context;
    nodeStates =
        new InformerEventSource<>(
            InformerEventSourceConfiguration.from(IoNodeState.class, IoPolicy.class)
                .withName("ionodestates")
                .withSecondaryToPrimaryMapper(state -> allPolicies(context))
                .build(),
            context);
    return List.of(nodeStates);
  }

  private static Set<ResourceID> allPolicies(EventSourceContext<IoPolicy> context) {
    return context
        .getPrimaryCache()
        .list()
        .map(ResourceID::fromResource)
        .collect(Collectors.toSet());
  }

  @Override
  public UpdateControl<IoPolicy> reconcile(IoPolicy policy, Context<IoPolicy> context) {
    IoPolicyStatus status =
        PolicyStatusFold.fold(policy, nodeStates.list().toList(), problem(policy), clock.instant());
    if (PolicyStatusFold.sameIgnoringTransitionTimes(status, policy.getStatus())
        || alreadyWritten(policy, status)) {
      return UpdateControl.noUpdate();
    }
    forgetDeleted();
    writer
        .writeStatus(policy, status)
        .ifPresent(
            after ->
                written.put(
                    policy.getMetadata().getUid(),
                    new Written(policy.getMetadata().getResourceVersion(), after, status)));
    return UpdateControl.noUpdate();
  }

  /**
   * True when the cache shows the policy as it was just before or just after this same status was
   * written: either the cache has not seen the write yet (a node state event can come first), or
   * the API server stored the status in a form that does not compare equal to the folded one.
   * Writing again would only repeat it.
   */
  private boolean alreadyWritten(IoPolicy policy, IoPolicyStatus status) {
    Written last = written.get(policy.getMetadata().getUid());
    String version = policy.getMetadata().getResourceVersion();
    return last != null
        && (last.before().equals(version) || last.after().equals(version))
        && PolicyStatusFold.sameIgnoringTransitionTimes(status, last.status());
  }

  /** Forgets the policies that are gone. */
  private void forgetDeleted() {
    if (policies != null && written.size() > 1) {
      Set<String> uids =
          policies
              .getPrimaryCache()
              .list()
              .map(p -> p.getMetadata().getUid())
              .collect(Collectors.toSet());
      written.keySet().retainAll(uids);
    }
  }

  /** What admission cannot check and the agents would refuse: the same mapping they use. */
  private static Optional<String> problem(IoPolicy policy) {
    try {
      ApiMapping.rules(policy);
      return Optional.empty();
    } catch (UnusablePolicyException e) {
      return Optional.of(e.problem());
    }
  }
}
