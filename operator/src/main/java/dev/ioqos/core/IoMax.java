package dev.ioqos.core;

import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * The whole io.max file of a cgroup: one line per limited device, empty when nothing is limited.
 */
public record IoMax(List<IoMaxLine> lines) {

  /** The file with no lines, as the kernel shows an unlimited cgroup. */
  public static final IoMax EMPTY = new IoMax(List.of());

  public IoMax {
    lines = List.copyOf(lines);
    Set<DeviceId> devices = new HashSet<>();
    for (IoMaxLine line : lines) {
      if (!devices.add(line.device())) {
        throw new IllegalArgumentException("io.max has two lines for device " + line.device());
      }
    }
  }

  /** Parses the file as read; empty content means no lines, a trailing newline is fine. */
  public static IoMax parse(String content) {
    List<String> texts = KernelText.lines(content);
    Set<DeviceId> devices = new HashSet<>();
    IoMaxLine[] lines = new IoMaxLine[texts.size()];
    for (int i = 0; i < lines.length; i++) {
      lines[i] = IoMaxLine.parse(texts.get(i));
      if (!devices.add(lines[i].device())) {
        throw new KernelFormatException(
            IoMaxLine.FILE, texts.get(i), "second line for device " + lines[i].device());
      }
    }
    return new IoMax(List.of(lines));
  }

  /**
   * The file's lines as the kernel shows them, joined by {@code "; "}; {@code (empty)} when no
   * device is limited: for people reading explain's output.
   */
  public String toKernelText() {
    if (lines.isEmpty()) {
      return "(empty)";
    }
    StringBuilder text = new StringBuilder();
    for (IoMaxLine line : lines) {
      text.append(text.length() == 0 ? "" : "; ").append(line.toKernelLine());
    }
    return text.toString();
  }

  /** The device's line's limits, empty when the file has no line for it. */
  public Optional<IoLimits> forDevice(DeviceId device) {
    Objects.requireNonNull(device, "device");
    for (IoMaxLine line : lines) {
      if (line.device().equals(device)) {
        return Optional.of(line.limits());
      }
    }
    return Optional.empty();
  }

  /**
   * The device's limits; {@link IoLimits#NONE} when absent, since writing all-max removes the line.
   */
  public IoLimits limitsFor(DeviceId device) {
    return forDevice(device).orElse(IoLimits.NONE);
  }
}
