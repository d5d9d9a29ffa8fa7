/**
 * The policy decision, free of Kubernetes and of the filesystem: pod, namespace and node facts plus
 * the cluster's IoPolicies give the winning policy, the pod's tier and the values to write.
 *
 * <p>Flow: {@link dev.ioqos.core.policy.PolicyResolver#decide} picks the policy ({@link
 * dev.ioqos.core.policy.PolicySelection}) and the tier ({@link
 * dev.ioqos.core.policy.TierResolution}); the caller resolves the decision's device selectors to
 * disks on its node and probes them; {@link dev.ioqos.core.policy.Planner#plan} then turns the tier
 * into what this node can enforce, naming everything it skips and why. {@link
 * dev.ioqos.core.policy.Defaults} holds the values a revert restores.
 */
package dev.ioqos.core.policy;
