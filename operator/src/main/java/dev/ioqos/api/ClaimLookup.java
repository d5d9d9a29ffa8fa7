package dev.ioqos.api;

import java.util.Optional;

/**
 * The PersistentVolume a pod's claim is bound to: kubelet names the volume's directory after the
 * PV, not the claim.
 */
@FunctionalInterface
public interface ClaimLookup {
  /** Knows no claims: every claim reads as unbound. */
  ClaimLookup NONE = (podUid, namespace, claimName) -> Optional.empty();

  /**
   * The bound PV's name; empty while the claim is unbound, missing or unreadable.
   *
   * @param podUid the pod using the claim (a claim in use cannot be rebound, so an answer may be
   *     kept for the pod's lifetime)
   */
  Optional<String> boundVolume(String podUid, String namespace, String claimName);
}
