package dev.ioqos.agent;

import dev.ioqos.api.ClaimLookup;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads a pod's claims with one GET each and keeps the bound PV per pod: a claim a pod uses cannot
 * be rebound while the pod exists (the pvc-protection finalizer keeps it), so resyncs cost no API
 * reads. Unbound or unreadable claims are asked again at the next pass.
 */
public final class ClaimVolumes implements ClaimLookup {
  private static final Logger LOG = LoggerFactory.getLogger(ClaimVolumes.class);
  private static final int MAX_KEPT = 10_000;

  private final KubernetesClient client;
  private final Map<String, String> bound = new ConcurrentHashMap<>();

  public ClaimVolumes(KubernetesClient client) {
    this.client = client;
  }

  @Override
  public Optional<String> boundVolume(String podUid, String namespace, String claimName) {
    String key = podUid + "/" + namespace + "/" + claimName;
    String known = bound.get(key);
    if (known != null) {
      return Optional.of(known);
    }
    PersistentVolumeClaim claim;
    try {
      claim = client.persistentVolumeClaims().inNamespace(namespace).withName(claimName).get();
    } catch (KubernetesClientException e) {
      LOG.warn("cannot read PersistentVolumeClaim {}/{}: {}", namespace, claimName, e.getMessage());
      return Optional.empty();
    }
    Optional<String> volume =
        Optional.ofNullable(claim)
            .map(PersistentVolumeClaim::getSpec)
            .map(spec -> spec.getVolumeName())
            .filter(name -> !name.isBlank());
    volume.ifPresent(
        name -> {
          if (bound.size() > MAX_KEPT) {
            bound.clear();
          }
          bound.put(key, name);
        });
    return volume;
  }

  /** Drops what is kept for a pod that is gone. */
  public void forget(String podUid) {
    bound.keySet().removeIf(key -> key.startsWith(podUid + "/"));
  }
}
