package dev.ioqos.api.v1alpha1;

import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn.Type;
import io.fabric8.generator.annotation.ValidationRule;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Version;

/** Cluster-scoped policy: which pods get which io.weight, io.max and io.latency. */
@Group(IoPolicy.GROUP)
@Version(IoPolicy.VERSION)
@ShortNames("iop")
@ValidationRule(
    value = "has(self.spec)",
    message = "spec is required",
    fieldPath = ".spec",
    reason = "FieldValueRequired")
// The generator orders columns by JSON path, not by the order written here.
@AdditionalPrinterColumn(name = "Age", jsonPath = ".metadata.creationTimestamp", type = Type.DATE)
@AdditionalPrinterColumn(name = "Mode", jsonPath = ".spec.mode")
@AdditionalPrinterColumn(name = "Priority", jsonPath = ".spec.priority", type = Type.INTEGER)
@AdditionalPrinterColumn(
    name = "Ready",
    jsonPath = ".status.conditions[?(@.type==\"Ready\")].status")
@AdditionalPrinterColumn(name = "Nodes", jsonPath = ".status.nodes.selected", type = Type.INTEGER)
@AdditionalPrinterColumn(name = "Applied", jsonPath = ".status.nodes.applied", type = Type.INTEGER)
@AdditionalPrinterColumn(name = "Failed", jsonPath = ".status.nodes.failed", type = Type.INTEGER)
public class IoPolicy extends CustomResource<IoPolicySpec, IoPolicyStatus> {
  public static final String GROUP = "ioqos.dev";
  public static final String VERSION = "v1alpha1";
  private static final long serialVersionUID = 1L;
}
