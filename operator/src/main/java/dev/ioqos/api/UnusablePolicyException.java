package dev.ioqos.api;

/**
 * An IoPolicy that cannot be turned into rules (admission should have refused it; files given to
 * {@code ioqos reconcile} had no admission). The message names the policy and the field.
 */
public final class UnusablePolicyException extends IllegalArgumentException {
  private final String policy;
  private final String problem;

  UnusablePolicyException(String policy, String problem, Throwable cause) {
    super("IoPolicy " + policy + ": " + problem, cause);
    this.policy = policy;
    this.problem = problem;
  }

  /** What is wrong, naming the field, without the policy's name. */
  public String problem() {
    return problem;
  }

  /** The policy's name, or {@code (no name)}. */
  public String policy() {
    return policy;
  }
}
