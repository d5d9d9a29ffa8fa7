package dev.ioqos.agent;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ioqos.metrics.MetricsAuth;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Authentication and authorisation of scrapers the Kubernetes way (as kube-rbac-proxy and
 * controller-runtime's secure metrics do): the bearer token is checked with a TokenReview, then the
 * identity's right to {@code get} the non-resource URL {@code /metrics} with a SubjectAccessReview.
 * Verdicts are remembered for a minute per token (by its SHA-256, never the token itself), at most
 * {@link #MAX_REMEMBERED} of them, so a scrape every few seconds costs the API server two requests
 * a minute.
 */
public final class KubernetesMetricsAuth implements MetricsAuth {
  private static final Logger LOG = LoggerFactory.getLogger(KubernetesMetricsAuth.class);
  static final int MAX_REMEMBERED = 256;
  private static final ObjectMapper JSON = new ObjectMapper();

  private final KubernetesClient client;
  private final Clock clock;
  private final Duration remember;
  private final Map<String, Remembered> verdicts =
      new LinkedHashMap<>(64, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Remembered> eldest) {
          return size() > MAX_REMEMBERED;
        }
      };

  private record Remembered(Verdict verdict, Instant until) {}

  public KubernetesMetricsAuth(KubernetesClient client, Clock clock, Duration remember) {
    this.client = client;
    this.clock = clock;
    this.remember = remember;
  }

  @Override
  public Verdict check(Optional<String> bearerToken) {
    if (bearerToken.isEmpty() || bearerToken.get().isBlank()) {
      return Verdict.UNAUTHENTICATED;
    }
    String key = sha256(bearerToken.get());
    Instant now = clock.instant();
    synchronized (verdicts) {
      Remembered known = verdicts.get(key);
      if (known != null && known.until().isAfter(now)) {
        return known.verdict();
      }
    }
    Verdict verdict = ask(bearerToken.get());
    if (verdict != Verdict.UNAVAILABLE) {
      synchronized (verdicts) {
        verdicts.put(key, new Remembered(verdict, now.plus(remember)));
      }
    }
    return verdict;
  }

  private Verdict ask(String token) {
    try {
      ObjectNode review = JSON.createObjectNode();
      review.put("apiVersion", "authentication.k8s.io/v1").put("kind", "TokenReview");
      review.putObject("spec").put("token", token);
      JsonNode reviewed = post("/apis/authentication.k8s.io/v1/tokenreviews", review);
      JsonNode status = reviewed.path("status");
      if (!status.path("authenticated").asBoolean(false)) {
        return Verdict.UNAUTHENTICATED;
      }
      JsonNode user = status.path("user");
      ObjectNode access = JSON.createObjectNode();
      access.put("apiVersion", "authorization.k8s.io/v1").put("kind", "SubjectAccessReview");
      ObjectNode spec = access.putObject("spec");
      spec.put("user", user.path("username").asText());
      if (user.has("uid")) {
        spec.put("uid", user.path("uid").asText());
      }
      if (user.has("groups")) {
        spec.set("groups", user.get("groups"));
      }
      if (user.has("extra")) {
        spec.set("extra", user.get("extra"));
      }
      spec.putObject("nonResourceAttributes").put("path", "/metrics").put("verb", "get");
      JsonNode decided = post("/apis/authorization.k8s.io/v1/subjectaccessreviews", access);
      return decided.path("status").path("allowed").asBoolean(false)
          ? Verdict.ALLOWED
          : Verdict.FORBIDDEN;
    } catch (Exception e) {
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      LOG.warn("cannot check a scraper's token with the API server: {}", e.toString());
      return Verdict.UNAVAILABLE;
    }
  }

  private JsonNode post(String path, JsonNode body) throws Exception {
    HttpClient http = client.getHttpClient();
    String base = client.getMasterUrl().toString().replaceAll("/+$", "");
    HttpRequest request =
        http.newHttpRequestBuilder()
            .uri(base + path)
            .post("application/json", JSON.writeValueAsString(body))
            .build();
    HttpResponse<String> response = http.sendAsync(request, String.class).get(10, TimeUnit.SECONDS);
    if (response.code() != 201 && response.code() != 200) {
      throw new IllegalStateException(
          "POST " + path + " answered " + response.code() + ": " + response.body());
    }
    return JSON.readTree(response.body());
  }

  private static String sha256(String token) {
    try {
      return HexFormat.of()
          .formatHex(
              MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("the JDK has no SHA-256", e);
    }
  }
}
