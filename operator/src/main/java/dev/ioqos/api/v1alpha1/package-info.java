/**
 * The {@code ioqos.dev/v1alpha1} API: {@link dev.ioqos.api.v1alpha1.IoPolicy} and {@link
 * dev.ioqos.api.v1alpha1.IoNodeState}, both cluster-scoped.
 *
 * <p>The CRDs under {@code crds/} are generated from these classes by fabric8's CRD generator; the
 * annotations here are the admission rules (OpenAPI schema plus CEL). Run {@code crds/update} after
 * changing a class.
 */
package dev.ioqos.api.v1alpha1;
