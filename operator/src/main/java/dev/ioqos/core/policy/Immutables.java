package dev.ioqos.core.policy;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;

/** Defensive copies for the package's records: null means empty, null entries are refused. */
final class Immutables {
  private Immutables() {}

  /** A sorted, unmodifiable copy, so equal facts print and compare the same way. */
  static <K extends Comparable<K>, V> SortedMap<K, V> map(Map<K, V> map, String what) {
    TreeMap<K, V> copy = new TreeMap<>();
    if (map != null) {
      map.forEach(
          (key, value) ->
              copy.put(
                  Objects.requireNonNull(key, () -> what + " has a null key"),
                  Objects.requireNonNull(value, () -> what + " has a null value for " + key)));
    }
    return Collections.unmodifiableSortedMap(copy);
  }

  static <T> List<T> list(List<T> list, String what) {
    if (list == null) {
      return List.of();
    }
    List<T> copy = new ArrayList<>(list.size());
    for (T element : list) {
      copy.add(Objects.requireNonNull(element, () -> what + " has a null entry"));
    }
    return Collections.unmodifiableList(copy);
  }

  static String text(String value, String what) {
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException(what + " must not be blank");
    }
    return value;
  }
}
