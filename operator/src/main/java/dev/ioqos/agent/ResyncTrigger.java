package dev.ioqos.agent;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.javaoperatorsdk.operator.processing.event.Event;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.AbstractEventSource;
import java.util.Set;
import java.util.stream.Stream;

/**
 * An event source fed by the agent itself: when something outside the informers changes (this
 * node's labels), every pod of the node is reconciled again.
 */
final class ResyncTrigger extends AbstractEventSource<Node, Pod> {
  ResyncTrigger() {
    super(Node.class, "node-changes");
  }

  @Override
  public Set<Node> getSecondaryResources(Pod primary) {
    return Set.of();
  }

  void trigger(Stream<ResourceID> pods) {
    if (isRunning()) {
      pods.forEach(pod -> getEventHandler().handleEvent(new Event(pod)));
    }
  }
}
