package dev.ioqos.agent;

import dev.ioqos.api.ApiMapping;
import dev.ioqos.core.policy.NodeFacts;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This node's labels, for policies' nodeSelector. Read with one GET of the own Node at start and at
 * every resync (no cluster-wide node watch); {@link #refresh()} says whether they changed. Until
 * one GET succeeded they are not known ({@link #known()}), which is not the same as no labels.
 */
public final class NodeLabels {
  private static final Logger LOG = LoggerFactory.getLogger(NodeLabels.class);

  private final KubernetesClient client;
  private final String nodeName;
  private volatile NodeFacts facts;
  private volatile boolean known;

  public NodeLabels(KubernetesClient client, String nodeName) {
    this.client = client;
    this.nodeName = nodeName;
    this.facts = new NodeFacts(nodeName, Map.of());
    refresh();
  }

  public NodeFacts facts() {
    return facts;
  }

  /** False until the node was read once. */
  public boolean known() {
    return known;
  }

  /** Reads the node again; true when its labels changed. */
  public boolean refresh() {
    try {
      Node node = client.nodes().withName(nodeName).get();
      NodeFacts fresh = ApiMapping.node(nodeName, node);
      boolean changed = !known || !fresh.equals(facts);
      facts = fresh;
      known = true;
      return changed;
    } catch (KubernetesClientException e) {
      LOG.warn("could not read node {}: {}", nodeName, e.getMessage());
      return false;
    }
  }
}
