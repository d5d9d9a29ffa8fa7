package dev.ioqos.api;

import dev.ioqos.api.v1alpha1.IoPolicy;
import dev.ioqos.core.policy.PolicyRules;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Converts IoPolicies to rules once per generation. A policy that passed admission but cannot be
 * used on this node (which admission should make impossible) is skipped and logged once, never a
 * crash.
 */
public final class PolicyValidity {
  private static final Logger LOG = LoggerFactory.getLogger(PolicyValidity.class);

  private record Key(String uid, Long generation) {}

  private final Map<Key, Optional<PolicyRules>> cache = new ConcurrentHashMap<>();

  public Optional<PolicyRules> rules(IoPolicy policy) {
    Key key = new Key(policy.getMetadata().getUid(), policy.getMetadata().getGeneration());
    if (cache.size() > 1000 && !cache.containsKey(key)) {
      // Outside computeIfAbsent: a ConcurrentHashMap must not be changed from its own mapping
      // function (it throws "Recursive update" or blocks).
      cache.clear();
    }
    return cache.computeIfAbsent(
        key,
        k -> {
          try {
            return Optional.of(ApiMapping.rules(policy));
          } catch (UnusablePolicyException e) {
            LOG.error("IoPolicy {} is ignored: {}", e.policy(), e.problem());
            return Optional.empty();
          }
        });
  }
}
