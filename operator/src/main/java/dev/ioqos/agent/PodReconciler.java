package dev.ioqos.agent;

import dev.ioqos.api.ApiMapping;
import dev.ioqos.api.PolicyValidity;
import dev.ioqos.api.v1alpha1.IoPolicy;
import dev.ioqos.core.policy.PolicyRules;
import dev.ioqos.node.UnknownFact;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.Pod;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Pods of this node are the primaries (field-selected by {@link NodeScope}); IoPolicies and
 * Namespaces are secondaries whose changes re-reconcile the pods they may concern. Thin: it gathers
 * the facts and hands them to {@link PodHandler}.
 */
@ControllerConfiguration(
    name = "ioqos-pods",
    generationAwareEventProcessing = false,
    // Deletes reach reconcile too (no finalizer on pods): a deleted pod is forgotten at once, not
    // at the next resync. Under churn the metrics went on reading up to a resync's worth of gone
    // cgroups (10 deletions a second made a scrape three times slower).
    triggerReconcilerOnAllEvents = true)
public final class PodReconciler implements Reconciler<Pod> {
  private final PodHandler handler;
  private final NodeLabels nodeLabels;
  private final PolicyValidity validity;
  private final ClaimVolumes claims;
  private final Liveness liveness;
  private InformerEventSource<IoPolicy, Pod> policies;
  private InformerEventSource<Namespace, Pod> namespaces;
  private final ResyncTrigger resync = new ResyncTrigger();
  private volatile EventSourceContext<Pod> sources;

  public PodReconciler(
      PodHandler handler,
      NodeLabels nodeLabels,
      PolicyValidity validity,
      Liveness liveness,
      ClaimVolumes claims) {
    this.handler = handler;
    this.claims = claims;
    this.nodeLabels = nodeLabels;
    this.validity = validity;
    this.liveness = liveness;
  }

  @Override
  public List<EventSource<?, Pod>> prepareEventSources(EventSourceContext<Pod> context) {
    sources = context;
    policies =
        new InformerEventSource<>(
            InformerEventSourceConfiguration.from(IoPolicy.class, Pod.class)
                .withName("iopolicies")
                .withItemStore(new TrimmedStore<>())
                .withSecondaryToPrimaryMapper(policy -> allPods(context))
                // Only the spec decides (the generation counts its changes): the aggregator's
                // status writes must not make every node reconcile every pod.
                .withOnUpdateFilter(
                    (updated, old) ->
                        !Objects.equals(
                            updated.getMetadata().getGeneration(),
                            old.getMetadata().getGeneration()))
                .build(),
            context);
    namespaces =
        new InformerEventSource<>(
            InformerEventSourceConfiguration.from(Namespace.class, Pod.class)
                .withName("namespaces")
                .withItemStore(new TrimmedStore<>())
                // Only a namespace's labels decide (namespaceSelector).
                .withOnUpdateFilter(
                    (updated, old) ->
                        !Objects.equals(
                            updated.getMetadata().getLabels(), old.getMetadata().getLabels()))
                .withSecondaryToPrimaryMapper(
                    namespace ->
                        context
                            .getPrimaryCache()
                            .list(
                                pod ->
                                    pod.getMetadata()
                                        .getNamespace()
                                        .equals(namespace.getMetadata().getName()))
                            .map(ResourceID::fromResource)
                            .collect(Collectors.toSet()))
                .build(),
            context);
    return List.of(policies, namespaces, resync);
  }

  private static Set<ResourceID> allPods(EventSourceContext<Pod> context) {
    return context
        .getPrimaryCache()
        .list()
        .map(ResourceID::fromResource)
        .collect(Collectors.toSet());
  }

  /** The UIDs of the pods this node's informer holds. */
  Set<String> podUids() {
    return sources
        .getPrimaryCache()
        .list()
        .map(pod -> pod.getMetadata().getUid())
        .collect(Collectors.toSet());
  }

  /** Reconciles every pod of the node again, e.g. after the node's labels changed. */
  void reconcileAll() {
    resync.trigger(sources.getPrimaryCache().list().map(ResourceID::fromResource));
  }

  @Override
  public UpdateControl<Pod> reconcile(Pod pod, Context<Pod> context) {
    if (context.isPrimaryResourceDeleted()) {
      // Gone from the API: kubelet has removed its cgroup, nothing to enforce or restore.
      handler.forget(pod.getMetadata().getUid());
      claims.forget(pod.getMetadata().getUid());
      return UpdateControl.noUpdate();
    }
    String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
    if ("Succeeded".equals(phase) || "Failed".equals(phase)) {
      // kubelet removes a finished pod's cgroup: nothing to enforce or restore.
      handler.forget(pod.getMetadata().getUid());
      claims.forget(pod.getMetadata().getUid());
      return UpdateControl.noUpdate();
    }
    Namespace namespace =
        namespaces.get(new ResourceID(pod.getMetadata().getNamespace())).orElse(null);
    List<PolicyRules> rules = new ArrayList<>();
    policies.list().forEach(policy -> validity.rules(policy).ifPresent(rules::add));
    Set<UnknownFact> unknown = EnumSet.noneOf(UnknownFact.class);
    if (!nodeLabels.known()) {
      unknown.add(UnknownFact.NODE_LABELS);
    }
    if (namespace == null) {
      unknown.add(UnknownFact.NAMESPACE_LABELS);
    }
    Optional<Duration> retry;
    liveness.passStarted(pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName());
    try {
      retry =
          handler.handle(
              ApiMapping.pod(pod, namespace, claims), nodeLabels.facts(), rules, unknown);
    } finally {
      liveness.passEnded();
    }
    return retry
        .<UpdateControl<Pod>>map(d -> UpdateControl.<Pod>noUpdate().rescheduleAfter(d))
        .orElseGet(UpdateControl::noUpdate);
  }
}
