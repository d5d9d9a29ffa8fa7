package dev.ioqos.agent;

import dev.ioqos.node.PodEvent;
import dev.ioqos.node.PodTarget;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Posts Events on pods the way kubelet's Event correlator does: the same reason and message for the
 * same pod is one Event whose {@code count} (and {@code series}) grows and whose {@code
 * lastTimestamp} follows the last occurrence, so {@code kubectl describe pod} shows "x7 over 2h"
 * rather than seven Events. The API server hears of a repeat at most once per {@code interval} (a
 * JSON merge patch of the count), so a periodic resync of 500 pods does not flood it; repeats in
 * between are counted here and written by {@link #summarize()} once the interval has passed. The
 * whole node stays within an {@link EventBudget}, whose suppressed Events are told in one summary
 * Event on the Node, itself one Event whose count adds up what was turned away. A failure to post
 * is logged, never thrown: Events are a courtesy, not the source of truth. They are posted by one
 * background thread, so that no reconcile waits for the API server to store an Event (a full queue
 * drops Events, logged). Memory is bounded: the least recently seen of more than {@value
 * #MAX_REMEMBERED} Events is forgotten (a later repeat starts a new Event).
 */
public final class EventReporter implements PodEventSink, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(EventReporter.class);
  private static final int MAX_REMEMBERED = 10_000;
  private static final int MAX_QUEUED = 1_000;
  private static final String SUMMARY_REASON = "EventsRateLimited";

  private final KubernetesClient client;
  private final String nodeName;
  private final Duration interval;
  private final Duration summaryPeriod;
  private final Clock clock;
  private final EventBudget budget;
  private volatile Instant lastSummary = Instant.MIN;
  private Series summary;

  /** Repeats counted but not written yet, by key; guarded by {@link #series}. */
  private final Set<String> unwritten = new LinkedHashSet<>();

  /** One Event object and its occurrences; fields guarded by {@link #series}. */
  private static final class Series {
    final ObjectReference involved;
    final String namePrefix;
    final PodEvent.Type type;
    final String reason;
    final String message;
    final Instant first;

    /** Occurrences so far: the Events seen, or for the summary the Events turned away. */
    int count;

    Instant lastSeen;
    Instant lastWritten;

    /** The Event's name once created; only read and written on the poster thread. */
    String name;

    Series(
        ObjectReference involved,
        String namePrefix,
        PodEvent.Type type,
        String reason,
        String message,
        Instant now) {
      this.involved = involved;
      this.namePrefix = namePrefix;
      this.type = type;
      this.reason = reason;
      this.message = message;
      this.first = now;
      this.lastSeen = now;
      this.lastWritten = now;
    }
  }

  private final Map<String, Series> series =
      new LinkedHashMap<>(256, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Series> eldest) {
          if (size() > MAX_REMEMBERED) {
            unwritten.remove(eldest.getKey());
            return true;
          }
          return false;
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
    this(client, nodeName, interval, Duration.ofMinutes(1), clock, EventBudget.standard(clock));
  }

  /**
   * @param interval how often a repeat of the same Event is written to the API server at most
   * @param summaryPeriod how often the summary of the Events the budget turned away is written
   */
  public EventReporter(
      KubernetesClient client,
      String nodeName,
      Duration interval,
      Duration summaryPeriod,
      Clock clock,
      EventBudget budget) {
    this.client = client;
    this.nodeName = nodeName;
    this.interval = interval;
    this.summaryPeriod = summaryPeriod;
    this.clock = clock;
    this.budget = budget;
  }

  /**
   * Posts the Event, or counts it as a repeat of the same Event for this pod: written as the
   * Event's new count once the interval since its last write has passed.
   */
  @Override
  public void post(PodTarget pod, PodEvent event) {
    String message = event.message();
    String text = message.length() > 1024 ? message.substring(0, 1021) + "..." : message;
    String reason = event.reason().text();
    String key = pod.uid() + "\u0000" + reason + "\u0000" + text;
    Instant now = clock.instant();
    synchronized (series) {
      Series known = series.get(key);
      if (known != null) {
        known.count++;
        known.lastSeen = now;
        if (known.lastWritten.plus(interval).isAfter(now) || !budget.take(event.type())) {
          // Counted, not lost (so not told as turned away): written by a later repeat or by
          // summarize() once the interval has passed and the budget allows.
          unwritten.add(key);
          return;
        }
        unwritten.remove(key);
        write(known, now, known.message);
        return;
      }
      if (!budget.admit(event.type(), reason)) {
        // Not remembered as posted: once the budget allows, a later pass posts it.
        return;
      }
      Series fresh = new Series(podReference(pod), pod.name(), event.type(), reason, text, now);
      fresh.count = 1;
      series.put(key, fresh);
      write(fresh, now, text);
    }
  }

  private static ObjectReference podReference(PodTarget pod) {
    return new ObjectReferenceBuilder()
        .withApiVersion("v1")
        .withKind("Pod")
        .withNamespace(pod.namespace())
        .withName(pod.name())
        .withUid(pod.uid())
        .build();
  }

  /**
   * Queues the write of a series' count as it stands now, with {@code message} (the summary's
   * changes); called holding {@link #series}.
   */
  private void write(Series one, Instant now, String message) {
    one.lastWritten = now;
    int count = one.count;
    Instant lastSeen = one.lastSeen;
    if (!poster.isShutdown()) {
      poster.execute(() -> store(one, count, lastSeen, message));
    }
  }

  /**
   * Creates the series' Event, or patches its count, last timestamp and message (the summary's
   * message changes). An Event the API server no longer has (its TTL, one hour by default, passed)
   * or may not be patched (an older ClusterRole without {@code patch}) is created again with the
   * count so far.
   */
  private void store(Series one, int count, Instant lastSeen, String message) {
    try {
      if (one.name != null) {
        try {
          patch(one, count, lastSeen, message);
          return;
        } catch (KubernetesClientException e) {
          if (e.getCode() != 404 && e.getCode() != 403) {
            throw e;
          }
          LOG.debug("Event {} not patched ({}): created again", one.name, e.getCode());
        }
      }
      one.name = create(one, count, lastSeen, message);
    } catch (KubernetesClientException e) {
      LOG.warn(
          "could not post Event {} on {} {}/{}: {}",
          one.reason,
          one.involved.getKind(),
          one.involved.getNamespace(),
          one.involved.getName(),
          e.getMessage());
    }
  }

  private static String namespace(Series one) {
    return one.involved.getNamespace() == null ? "default" : one.involved.getNamespace();
  }

  /** One Event from this node's agent about the series' object (its namespace, or "default"). */
  private String create(Series one, int count, Instant lastSeen, String message) {
    String namespace = namespace(one);
    EventBuilder event =
        new EventBuilder()
            .withNewMetadata()
            .withGenerateName(one.namePrefix + ".")
            .withNamespace(namespace)
            .endMetadata()
            .withInvolvedObject(one.involved)
            .withType(one.type.name())
            .withReason(one.reason)
            .withMessage(message)
            .withNewSource()
            .withComponent("ioqos")
            .withHost(nodeName)
            .endSource()
            .withReportingComponent("ioqos.dev/agent")
            .withReportingInstance(nodeName)
            .withFirstTimestamp(one.first.toString())
            .withLastTimestamp(lastSeen.toString())
            .withCount(count);
    if (count > 1) {
      event.withNewSeries().withCount(count).withNewLastObservedTime(micro(lastSeen)).endSeries();
    }
    return client
        .v1()
        .events()
        .inNamespace(namespace)
        .resource(event.build())
        .create()
        .getMetadata()
        .getName();
  }

  /** A JSON merge patch of the count, the series, the last timestamp and the message. */
  private void patch(Series one, int count, Instant lastSeen, String message) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("count", count);
    body.put("lastTimestamp", lastSeen.toString());
    body.put("series", Map.of("count", count, "lastObservedTime", micro(lastSeen)));
    body.put("message", message);
    client
        .v1()
        .events()
        .inNamespace(namespace(one))
        .withName(one.name)
        .patch(
            PatchContext.of(PatchType.JSON_MERGE),
            client.getKubernetesSerialization().asJson(body));
  }

  /** The API's MicroTime: RFC 3339 with microseconds. */
  private static String micro(Instant instant) {
    return MICRO.format(instant.truncatedTo(ChronoUnit.MICROS));
  }

  private static final DateTimeFormatter MICRO =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSSSSX").withZone(ZoneOffset.UTC);

  /**
   * Called by the agent's periodic loop: writes the counts of repeats whose interval has passed,
   * and at most once a summary period (a minute) posts what the node's Event budget turned away, as
   * one Event on the Node whose count adds up every Event turned away since the agent started.
   */
  public void summarize() {
    Instant now = clock.instant();
    synchronized (series) {
      for (Iterator<String> keys = unwritten.iterator(); keys.hasNext(); ) {
        Series one = series.get(keys.next());
        if (one == null) {
          keys.remove();
        } else if (!one.lastWritten.plus(interval).isAfter(now) && budget.take(one.type)) {
          keys.remove();
          write(one, now, one.message);
        }
      }
    }
    if (Duration.between(lastSummary, now).compareTo(summaryPeriod) < 0) {
      return;
    }
    budget
        .drain()
        .ifPresent(
            drained -> {
              lastSummary = now;
              LOG.warn("{}", drained.message());
              synchronized (series) {
                PodEvent.Type type =
                    drained.warnings() ? PodEvent.Type.Warning : PodEvent.Type.Normal;
                if (summary == null || summary.type != type) {
                  summary = new Series(nodeReference(), nodeName, type, SUMMARY_REASON, "", now);
                }
                summary.count += drained.count();
                summary.lastSeen = now;
                write(summary, now, drained.message());
              }
            });
  }

  private ObjectReference nodeReference() {
    return new ObjectReferenceBuilder()
        .withApiVersion("v1")
        .withKind("Node")
        .withName(nodeName)
        .build();
  }

  /** Stops posting; Events still queued are dropped. */
  @Override
  public void close() {
    poster.shutdownNow();
  }

  /** Forgets the Events of a pod that went away, counted repeats not written included. */
  @Override
  public void forget(String uid) {
    synchronized (series) {
      series.keySet().removeIf(key -> key.startsWith(uid + "\u0000"));
      unwritten.removeIf(key -> key.startsWith(uid + "\u0000"));
    }
  }
}
