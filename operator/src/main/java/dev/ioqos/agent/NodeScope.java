package dev.ioqos.agent;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.javaoperatorsdk.operator.api.config.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.config.ResolvedControllerConfiguration;
import io.javaoperatorsdk.operator.api.config.informer.FieldSelector;
import io.javaoperatorsdk.operator.api.config.informer.InformerConfiguration;
import java.util.Map;

/**
 * Narrows a controller's primary informer to one node's pods with the server-side field selector
 * {@code spec.nodeName=<node>}: each agent lists and watches only its own node's pods, so the API
 * server's cost per agent does not grow with the cluster. JOSDK 5.2's overrider has no field
 * selector setter, so the configuration is rebuilt around a new informer configuration. Its cache
 * keeps the pods trimmed ({@link TrimmedStore}).
 */
public final class NodeScope {
  public static final String NODE_NAME_FIELD = "spec.nodeName";

  private NodeScope() {}

  public static <P extends HasMetadata> ControllerConfiguration<P> onlyNode(
      ControllerConfiguration<P> base, String nodeName) {
    if (nodeName == null || nodeName.isBlank()) {
      throw new IllegalArgumentException("the node name must not be empty (set NODE_NAME)");
    }
    InformerConfiguration<P> informer =
        InformerConfiguration.builder(base.getInformerConfig())
            .withFieldSelector(
                new FieldSelector(new FieldSelector.Field(NODE_NAME_FIELD, nodeName)))
            .withItemStore(new TrimmedStore<>())
            .buildForController();
    return new ResolvedControllerConfiguration<>(
        base.getName(),
        base.isGenerationAware(),
        base.getAssociatedReconcilerClassName(),
        base.getRetry(),
        base.getRateLimiter(),
        base.maxReconciliationInterval().orElse(null),
        base.getFinalizerName(),
        Map.of(),
        base.fieldManager(),
        base.getConfigurationService(),
        informer,
        base.triggerReconcilerOnAllEvents(),
        base.getWorkflowSpec().orElse(null));
  }
}
