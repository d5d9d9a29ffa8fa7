package dev.ioqos.agent;

import dev.ioqos.node.PodEvent;
import dev.ioqos.node.PodTarget;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Posts Events on pods, rate limited twice: the same reason and message for the same pod is posted
 * at most once per {@code interval}, so a periodic resync of 500 pods does not flood the API
 * server; and the whole node stays within an {@link EventBudget}, whose suppressed Events are told
 * in one summary Event on the Node at most once a minute ({@link #summarize()}). A failure to post
 * is logged, never thrown: Events are a courtesy, not the source of truth. They are posted by one
 * background thread, so that no reconcile waits for the API server to store an Event (a full queue
 * drops Events, logged).
 */
public final class EventReporter implements PodEventSink, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(EventReporter.class);
  private static final int MAX_REMEMBERED = 10_000;
  private static final int MAX_QUEUED = 1_000;

  private final KubernetesClient client;
  private final String nodeName;
  private final Duration interval;
  private final Clock clock;
  private final EventBudget budget;
  private volatile Instant lastSummary = Instant.MIN;
  private final Map<String, Instant> lastPosted =
      new LinkedHashMap<>(256, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Instant> eldest) {
          return size() > MAX_REMEMBERED;
        }
      };

  private final ThreadPoolExecutor poster =
      new ThreadPoolExecutor(
          1,
          1,
          0,
          TimeUnit.SECONDS,
          new LinkedBlockingQueue<>(MAX_QUEUED),
          r -> {
            Thread thread = new Thread(r, "ioqos-events");
            thread.setDaemon(true);
            return thread;
          },
          (task, executor) -> LOG.warn("{} Events queued already: one dropped", MAX_QUEUED));

  public EventReporter(KubernetesClient client, String nodeName, Duration interval, Clock clock) {
    this(client, nodeName, interval, clock, EventBudget.standard(clock));
  }

  public EventReporter(
      KubernetesClient client,
      String nodeName,
      Duration interval,
      Clock clock,
      EventBudget budget) {
    this.client = client;
    this.nodeName = nodeName;
    this.interval = interval;
    this.clock = clock;
    this.budget = budget;
  }

  /** Posts unless the same event for this pod was posted within the interval. */
  @Override
  public void post(PodTarget pod, PodEvent event) {
    post(pod, event.type(), event.reason().text(), event.message());
  }

  private void post(PodTarget pod, PodEvent.Type type, String reason, String message) {
    String key = pod.uid() + "\u0000" + reason + "\u0000" + message;
    Instant now = clock.instant();
    synchronized (lastPosted) {
      Instant last = lastPosted.get(key);
      if (last != null && last.plus(interval).isAfter(now)) {
        return;
      }
      if (!budget.admit(type, reason)) {
        // Not remembered as posted: once the budget allows, a later pass posts it.
        return;
      }
      lastPosted.put(key, now);
    }
    String text = message.length() > 1024 ? message.substring(0, 1021) + "..." : message;
    if (!poster.isShutdown()) {
      poster.execute(() -> create(pod, type, reason, text, now));
    }
  }

  private void create(PodTarget pod, PodEvent.Type type, String reason, String text, Instant now) {
    ObjectReference involved =
        new ObjectReferenceBuilder()
            .withApiVersion("v1")
            .withKind("Pod")
            .withNamespace(pod.namespace())
            .withName(pod.name())
            .withUid(pod.uid())
            .build();
    try {
      create(involved, pod.name(), type.name(), reason, text, 1, now);
    } catch (KubernetesClientException e) {
      LOG.warn(
          "could not post event {} on pod {}: {}", reason, pod.qualifiedName(), e.getMessage());
    }
  }

  /** One Event from this node's agent about {@code involved} (its namespace, or "default"). */
  private void create(
      ObjectReference involved,
      String namePrefix,
      String type,
      String reason,
      String text,
      int count,
      Instant now) {
    String namespace = involved.getNamespace() == null ? "default" : involved.getNamespace();
    client
        .v1()
        .events()
        .inNamespace(namespace)
        .resource(
            new EventBuilder()
                .withNewMetadata()
                .withGenerateName(namePrefix + ".")
                .withNamespace(namespace)
                .endMetadata()
                .withInvolvedObject(involved)
                .withType(type)
                .withReason(reason)
                .withMessage(text)
                .withNewSource()
                .withComponent("ioqos")
                .withHost(nodeName)
                .endSource()
                .withReportingComponent("ioqos.dev/agent")
                .withReportingInstance(nodeName)
                .withFirstTimestamp(now.toString())
                .withLastTimestamp(now.toString())
                .withCount(count)
                .build())
        .create();
  }

  /**
   * Posts one Event on the Node telling how many pod Events the budget turned away, at most once a
   * minute; called by the agent's periodic loop.
   */
  public void summarize() {
    Instant now = clock.instant();
    if (Duration.between(lastSummary, now).compareTo(Duration.ofMinutes(1)) < 0) {
      return;
    }
    budget
        .drain()
        .ifPresent(
            summary -> {
              lastSummary = now;
              LOG.warn("{}", summary.message());
              if (!poster.isShutdown()) {
                poster.execute(() -> createOnNode(summary, now));
              }
            });
  }

  private void createOnNode(EventBudget.Summary summary, Instant now) {
    ObjectReference node =
        new ObjectReferenceBuilder()
            .withApiVersion("v1")
            .withKind("Node")
            .withName(nodeName)
            .build();
    try {
      create(
          node,
          nodeName,
          summary.warnings() ? "Warning" : "Normal",
          "EventsRateLimited",
          summary.message(),
          summary.count(),
          now);
    } catch (KubernetesClientException e) {
      LOG.warn("could not post the Event summary on node {}: {}", nodeName, e.getMessage());
    }
  }

  /** Stops posting; Events still queued are dropped. */
  @Override
  public void close() {
    poster.shutdownNow();
  }

  /** Forgets a pod's rate-limit memory, e.g. when it goes away. */
  @Override
  public void forget(String uid) {
    synchronized (lastPosted) {
      lastPosted.keySet().removeIf(key -> key.startsWith(uid + "\u0000"));
    }
  }
}
