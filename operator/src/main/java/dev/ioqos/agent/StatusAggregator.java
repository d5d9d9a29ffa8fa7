package dev.ioqos.agent;

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
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * IoPolicies are the primaries, IoNodeStates a secondary informer whose every change concerns every
 * policy. Thin: it reads the node states from the informer's cache, lets {@link PolicyStatusFold}
 * compute the status and hands it to the {@link Writer} only when it differs from the current one
 * (lastTransitionTime aside), so a steady cluster costs no writes.
 */
@ControllerConfiguration(name = "ioqos-policy-status")
public final class StatusAggregator implements Reconciler<IoPolicy> {

  /** Writes a policy's status through the status subresource. */
  @FunctionalInterface
  public interface Writer {
    void writeStatus(IoPolicy policy, IoPolicyStatus status);
  }

  private final Writer writer;
  private final Clock clock;
  private InformerEventSource<IoNodeState, IoPolicy> nodeStates;

  public StatusAggregator(Writer writer, Clock clock) {
    this.writer = writer;
    this.clock = clock;
  }

  @Override
  public List<EventSource<?, IoPolicy>> prepareEventSources(EventSourceContext<IoPolicy> context) {
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
    if (!PolicyStatusFold.sameIgnoringTransitionTimes(status, policy.getStatus())) {
      writer.writeStatus(policy, status);
    }
    return UpdateControl.noUpdate();
  }

  /** What admission cannot check and the agents would refuse: the same mapping they use. */
  private static Optional<String> problem(IoPolicy policy) {
    try {
      ApiMapping.rules(policy);
      return Optional.empty();
    } catch (RuntimeException e) {
      return Optional.of(e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage());
    }
  }
}
