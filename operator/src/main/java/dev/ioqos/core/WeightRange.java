package dev.ioqos.core;

import java.util.Optional;

/** The valid weights of a weight file: io.weight (iocost) takes 1..10000, io.bfq.weight 1..1000. */
public enum WeightRange {
  // Measured: io.weight "default 0" and "default 10001" -> EINVAL.
  IO_WEIGHT("io.weight", 1, 10_000),
  BFQ_WEIGHT("io.bfq.weight", 1, 1_000);

  /** Both files read {@code default 100} in a fresh cgroup. */
  public static final int DEFAULT = 100;

  private final String fileName;
  private final int min;
  private final int max;

  WeightRange(String fileName, int min, int max) {
    this.fileName = fileName;
    this.min = min;
    this.max = max;
  }

  /** The range of the weight file named {@code fileName}, if it is one. */
  public static Optional<WeightRange> ofFile(String fileName) {
    for (WeightRange range : values()) {
      if (range.fileName.equals(fileName)) {
        return Optional.of(range);
      }
    }
    return Optional.empty();
  }

  /** The cgroupfs file these weights go to. */
  public String fileName() {
    return fileName;
  }

  public int min() {
    return min;
  }

  public int max() {
    return max;
  }

  public boolean contains(int weight) {
    return weight >= min && weight <= max;
  }

  /** Returns {@code weight}, or throws {@link IllegalArgumentException} when outside the range. */
  public int check(int weight) {
    if (!contains(weight)) {
      throw new IllegalArgumentException(outside(weight));
    }
    return weight;
  }

  String outside(long weight) {
    return "weight " + weight + " is outside " + fileName + "'s range " + min + ".." + max;
  }
}
