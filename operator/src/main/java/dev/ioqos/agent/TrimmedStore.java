package dev.ioqos.agent;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.client.informers.cache.BasicItemStore;
import io.fabric8.kubernetes.client.informers.cache.Cache;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * An informer cache that keeps objects without what the agent never reads: {@code
 * metadata.managedFields} (on a pod that kubelet updated, a nested map of every status field, the
 * bulk of the object in memory) and the {@code kubectl.kubernetes.io/last-applied-configuration}
 * annotation (a copy of the whole object as text). The object is trimmed as it is stored, before
 * the informer hands it to event handlers, so handlers and the cache see the same trimmed object.
 */
public final class TrimmedStore<V extends HasMetadata> extends BasicItemStore<V> {
  static final String LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration";

  public TrimmedStore() {
    super(Cache::metaNamespaceKeyFunc);
  }

  @Override
  public V put(String key, V obj) {
    return super.put(key, trim(obj));
  }

  /** Removes the fields above from {@code obj} (in place) and returns it. */
  static <V extends HasMetadata> V trim(V obj) {
    ObjectMeta meta = obj.getMetadata();
    if (meta == null) {
      return obj;
    }
    meta.setManagedFields(null);
    Map<String, String> annotations = meta.getAnnotations();
    if (annotations != null && annotations.containsKey(LAST_APPLIED)) {
      Map<String, String> kept = new LinkedHashMap<>(annotations);
      kept.remove(LAST_APPLIED);
      meta.setAnnotations(kept);
    }
    return obj;
  }
}
