package dev.ioqos.api.v1alpha1;

import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn.Type;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * Cluster-scoped, one per node (name = node name, owner = the Node): what that node's agent can
 * enforce and how its pods fared. Written only by that node's agent; it has no spec.
 */
@Group(IoPolicy.GROUP)
@Version(IoPolicy.VERSION)
@ShortNames("ions")
// The generator orders columns by JSON path, not by the order written here.
@AdditionalPrinterColumn(name = "Cgroup", jsonPath = ".status.cgroup.version")
@AdditionalPrinterColumn(
    name = "IO",
    jsonPath = ".status.cgroup.ioControllerEnabled",
    type = Type.BOOLEAN)
@AdditionalPrinterColumn(name = "IOCost", jsonPath = ".status.kernel.iocost", type = Type.BOOLEAN)
@AdditionalPrinterColumn(
    name = "IOLatency",
    jsonPath = ".status.kernel.ioLatency",
    type = Type.BOOLEAN)
@AdditionalPrinterColumn(name = "PSI", jsonPath = ".status.kernel.psi", type = Type.BOOLEAN)
@AdditionalPrinterColumn(name = "Managed", jsonPath = ".status.pods.managed", type = Type.INTEGER)
@AdditionalPrinterColumn(name = "Failed", jsonPath = ".status.pods.failed", type = Type.INTEGER)
@AdditionalPrinterColumn(name = "Age", jsonPath = ".metadata.creationTimestamp", type = Type.DATE)
public class IoNodeState extends CustomResource<Void, IoNodeStateStatus> {
  private static final long serialVersionUID = 1L;
}
