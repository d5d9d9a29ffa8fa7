package dev.ioqos.bench.agent;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Predicate;

/**
 * The API server's audit log read back: one entry per request (its first logged stage, keyed by
 * audit ID), with the client's User-Agent, verb, resource and the time the server received it.
 */
final class AuditLog {
  record Request(
      String id, Instant received, String userAgent, String verb, String resource, String uri) {
    boolean write() {
      return List.of("create", "update", "patch", "delete", "deletecollection").contains(verb);
    }

    String key() {
      return verb + " " + resource;
    }
  }

  private final Path file;
  private final ObjectMapper json = new ObjectMapper();

  AuditLog(Path file) {
    this.file = file;
  }

  /** Requests received in [from, to) whose User-Agent matches. */
  List<Request> requests(Instant from, Instant to, Predicate<String> userAgent) throws IOException {
    Set<String> seen = new HashSet<>();
    java.util.ArrayList<Request> out = new java.util.ArrayList<>();
    try (BufferedReader reader = Files.newBufferedReader(file)) {
      String line;
      while ((line = reader.readLine()) != null) {
        JsonNode entry = json.readTree(line);
        String id = entry.path("auditID").asText();
        if (!seen.add(id)) {
          continue;
        }
        Instant received = Instant.parse(entry.path("requestReceivedTimestamp").asText());
        String agent = entry.path("userAgent").asText("");
        if (received.isBefore(from) || !received.isBefore(to) || !userAgent.test(agent)) {
          continue;
        }
        JsonNode ref = entry.path("objectRef");
        String resource = ref.path("resource").asText("");
        if (ref.hasNonNull("subresource")) {
          resource += "/" + ref.path("subresource").asText();
        }
        out.add(
            new Request(
                id,
                received,
                agent,
                entry.path("verb").asText(),
                resource.isEmpty() ? entry.path("requestURI").asText() : resource,
                entry.path("requestURI").asText()));
      }
    }
    return out;
  }

  /** Counts by "verb resource". */
  static Map<String, Integer> byKind(List<Request> requests) {
    Map<String, Integer> counts = new TreeMap<>();
    for (Request request : requests) {
      counts.merge(request.key(), 1, Integer::sum);
    }
    return counts;
  }
}
