package dev.ioqos.metrics;

import java.util.Optional;

/** Who may read {@code /metrics}: a verdict on the bearer token a request carries. */
public interface MetricsAuth {
  /** What the server answers. */
  enum Verdict {
    /** 200 and the metrics. */
    ALLOWED,
    /** 401: no token, or one the API server does not know. */
    UNAUTHENTICATED,
    /** 403: a known identity without {@code get} on the non-resource URL {@code /metrics}. */
    FORBIDDEN,
    /** 503: the API server could not be asked; the scraper retries. */
    UNAVAILABLE
  }

  Verdict check(Optional<String> bearerToken);
}
