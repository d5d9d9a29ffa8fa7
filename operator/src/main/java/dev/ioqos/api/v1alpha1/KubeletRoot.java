package dev.ioqos.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * Marker for "the disk(s) under kubelet's root directory", written {@code kubeletRoot: {}}; it has
 * no fields yet so that options can be added later without changing the shape.
 */
// A class-level Jackson annotation lets Jackson serialize this field-less bean as {}.
@JsonInclude(JsonInclude.Include.NON_NULL)
public class KubeletRoot {}
