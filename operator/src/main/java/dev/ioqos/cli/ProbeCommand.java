package dev.ioqos.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.ioqos.probe.CapabilityProbe;
import dev.ioqos.probe.DiskCapability;
import dev.ioqos.probe.KubepodsCapability;
import dev.ioqos.probe.NodeCapabilities;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code ioqos probe}: prints what this node's kernel can enforce. */
@Command(
    name = "probe",
    mixinStandardHelpOptions = true,
    description = "Print this node's I/O QoS capabilities.")
final class ProbeCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Mixin NodeOptions node;

  @Option(
      names = "--output",
      defaultValue = "text",
      description = "text or json (default: ${DEFAULT-VALUE})")
  String output;

  @Override
  public Integer call() throws Exception {
    if (!output.equals("text") && !output.equals("json")) {
      throw new IllegalArgumentException("--output must be text or json, not '" + output + "'");
    }
    NodeCapabilities capabilities =
        new CapabilityProbe(node.cgroupfs, node.sysfs, node.procfs).probe(node.layoutIfFound());
    if (output.equals("json")) {
      ObjectMapper json = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
      spec.commandLine().getOut().println(json.writeValueAsString(asJson(capabilities)));
    } else {
      spec.commandLine().getOut().print(asText(capabilities));
    }
    return 0;
  }

  static Map<String, Object> asJson(NodeCapabilities capabilities) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("cgroupVersion", capabilities.cgroupVersion().toString());
    out.put("ioController", capabilities.ioController());
    KubepodsCapability kubepods = capabilities.kubepods();
    if (kubepods == null) {
      out.put("kubepods", null);
    } else {
      Map<String, Object> pods = new LinkedHashMap<>();
      pods.put("driver", kubepods.driver().toString());
      pods.put("path", kubepods.path());
      pods.put("ioEnabled", kubepods.ioEnabled());
      out.put("kubepods", pods);
    }
    out.put("psi", capabilities.psi());
    out.put("ioLatency", capabilities.ioLatency());
    out.put("iocostAvailable", capabilities.iocostAvailable());
    out.put("kernelRelease", capabilities.kernelRelease());
    List<Map<String, Object>> devices = new ArrayList<>();
    for (DiskCapability disk : capabilities.devices()) {
      Map<String, Object> device = new LinkedHashMap<>();
      device.put("name", disk.name());
      device.put("majMin", disk.majMin().toString());
      device.put("scheduler", disk.scheduler());
      device.put("rotational", disk.rotational());
      device.put("iocost", disk.iocost());
      device.put("weightMechanism", disk.weightMechanism().toString());
      devices.add(device);
    }
    out.put("devices", devices);
    return out;
  }

  static String asText(NodeCapabilities capabilities) {
    StringBuilder text = new StringBuilder();
    text.append(String.format("kernel:         %s%n", capabilities.kernelRelease()));
    text.append(String.format("cgroup:         %s%n", capabilities.cgroupVersion()));
    text.append(String.format("io controller:  %s%n", yesNo(capabilities.ioController())));
    KubepodsCapability kubepods = capabilities.kubepods();
    text.append(
        kubepods == null
            ? String.format("kubepods:       not found%n")
            : String.format(
                "kubepods:       %s (%s driver), io %s%n",
                kubepods.path(),
                kubepods.driver(),
                kubepods.ioEnabled() ? "enabled" : "NOT enabled in cgroup.subtree_control"));
    text.append(String.format("PSI:            %s%n", yesNo(capabilities.psi())));
    text.append(
        String.format(
            "io.latency:     %s%n",
            capabilities.ioLatency() ? "yes" : "no (latency targets will be skipped)"));
    text.append(
        String.format(
            "iocost:         %s%n", capabilities.iocostAvailable() ? "available" : "not built"));
    text.append(
        String.format(
            "%-10s %-8s %-12s %-10s %-7s %s%n",
            "DEVICE", "MAJ:MIN", "SCHEDULER", "ROTATIONAL", "IOCOST", "WEIGHTS"));
    for (DiskCapability disk : capabilities.devices()) {
      text.append(
          String.format(
              "%-10s %-8s %-12s %-10s %-7s %s%n",
              disk.name(),
              disk.majMin(),
              disk.scheduler(),
              yesNo(disk.rotational()),
              disk.iocost() ? "on" : "off",
              disk.weightMechanism()));
    }
    return text.toString();
  }

  private static String yesNo(boolean value) {
    return value ? "yes" : "no";
  }
}
