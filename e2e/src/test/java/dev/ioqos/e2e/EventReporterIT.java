package dev.ioqos.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ioqos.agent.EventBudget;
import dev.ioqos.agent.EventReporter;
import dev.ioqos.node.PodEvent;
import dev.ioqos.node.PodTarget;
import dev.ioqos.testkit.Eventually;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The agent's Events against a real API server: a repeat of the same Event is one Event object
 * whose count, series and last timestamp grow (a JSON merge patch, as the agent's ClusterRole
 * allows), repeats within the interval are counted and written once it has passed, an Event the API
 * server lost is created again with the count so far, and the node's budget summary is one Event on
 * the Node whose count adds up what was turned away.
 */
class EventReporterIT {
  static final String NS = "event-series";
  static final Duration INTERVAL = Duration.ofSeconds(2);
  static KubernetesClient client;
  EventReporter reporter;

  @BeforeAll
  static void namespace() {
    client = TestCluster.get().newClient();
    client
        .resource(new NamespaceBuilder().withNewMetadata().withName(NS).endMetadata().build())
        .serverSideApply();
  }

  @AfterAll
  static void close() {
    client.close();
  }

  @AfterEach
  void stop() {
    if (reporter != null) {
      reporter.close();
    }
  }

  static PodTarget pod(String name) {
    return new PodTarget(UUID.randomUUID().toString(), NS, name, "/kubepods/pod" + name);
  }

  static List<Event> eventsOf(String name, String reason) {
    return client.v1().events().inNamespace(NS).list().getItems().stream()
        .filter(e -> e.getInvolvedObject().getName().equals(name))
        .filter(e -> e.getReason().equals(reason))
        .toList();
  }

  static List<Event> eventsOf(String name, String reason, String message) {
    return eventsOf(name, reason).stream().filter(e -> e.getMessage().equals(message)).toList();
  }

  static Event onlyEvent(String name, String reason, int count) {
    return Eventually.value(
            () -> eventsOf(name, reason),
            events -> events.size() == 1 && events.get(0).getCount() == count,
            Duration.ofSeconds(20),
            "one " + reason + " Event on " + name + " with count " + count)
        .get(0);
  }

  @Test
  void repeatsOfAnEventAreOneEventWhoseCountGrows() {
    reporter =
        new EventReporter(
            client,
            "node-events",
            INTERVAL,
            Duration.ofMinutes(1),
            Clock.systemUTC(),
            EventBudget.standard(Clock.systemUTC()));
    PodTarget pod = pod("failing");
    PodEvent failed =
        new PodEvent(
            PodEvent.Type.Warning, PodEvent.Reason.APPLY_FAILED, "io.max: Invalid argument");

    reporter.post(pod, failed);
    Event first = onlyEvent("failing", "ApplyFailed", 1);
    assertThat(first.getSeries()).isNull();
    assertThat(first.getInvolvedObject().getUid()).isEqualTo(pod.uid());

    // Two repeats within the interval: counted, nothing written yet.
    reporter.post(pod, failed);
    reporter.post(pod, failed);
    Eventually.sleep(Duration.ofMillis(500));
    assertThat(onlyEvent("failing", "ApplyFailed", 1).getMetadata().getResourceVersion())
        .isEqualTo(first.getMetadata().getResourceVersion());

    // Once the interval has passed the periodic loop writes their count.
    Eventually.sleep(INTERVAL);
    reporter.summarize();
    Event three = onlyEvent("failing", "ApplyFailed", 3);
    assertThat(three.getMetadata().getName()).isEqualTo(first.getMetadata().getName());
    assertThat(three.getSeries().getCount()).isEqualTo(3);
    // lastTimestamp is the last repeat's (whole seconds); the series' time has microseconds.
    assertThat(Instant.parse(three.getLastTimestamp()))
        .isAfterOrEqualTo(Instant.parse(three.getFirstTimestamp()));
    assertThat(Instant.parse(three.getSeries().getLastObservedTime().getTime()))
        .isAfter(Instant.parse(first.getFirstTimestamp()));
    assertThat(three.getFirstTimestamp()).isEqualTo(first.getFirstTimestamp());

    // A repeat after the interval is written at once.
    Eventually.sleep(INTERVAL);
    reporter.post(pod, failed);
    assertThat(onlyEvent("failing", "ApplyFailed", 4).getMetadata().getName())
        .isEqualTo(first.getMetadata().getName());

    // Another message is another Event.
    reporter.post(
        pod,
        new PodEvent(
            PodEvent.Type.Warning, PodEvent.Reason.APPLY_FAILED, "io.max: No such device"));
    Eventually.value(
        () -> eventsOf("failing", "ApplyFailed"),
        events -> events.size() == 2,
        Duration.ofSeconds(20),
        "a second ApplyFailed Event for another message");

    // The API server lost the Event (its TTL): the next write creates it again, count kept.
    client.v1().events().inNamespace(NS).withName(first.getMetadata().getName()).delete();
    Eventually.value(
        () -> eventsOf("failing", "ApplyFailed"),
        events -> events.size() == 1,
        Duration.ofSeconds(20),
        "the first Event deleted");
    Eventually.sleep(INTERVAL);
    reporter.post(pod, failed);
    Eventually.value(
        () -> eventsOf("failing", "ApplyFailed", "io.max: Invalid argument"),
        events -> events.size() == 1 && events.get(0).getCount() == 5,
        Duration.ofSeconds(20),
        "the lost Event created again with count 5");

    // A pod that went away is forgotten: its next Event starts a new count.
    reporter.forget(pod.uid());
    Eventually.sleep(INTERVAL);
    reporter.post(pod, failed);
    Eventually.value(
        () -> eventsOf("failing", "ApplyFailed", "io.max: Invalid argument"),
        events -> events.size() == 2 && events.stream().anyMatch(e -> e.getCount() == 1),
        Duration.ofSeconds(20),
        "a forgotten pod's Event starts again at 1");
  }

  @Test
  void whatTheBudgetTurnsAwayIsCountedInOneEventOnTheNode() {
    Clock clock = Clock.systemUTC();
    reporter =
        new EventReporter(
            client,
            "node-budget",
            Duration.ofMinutes(10),
            Duration.ofSeconds(1),
            clock,
            new EventBudget(
                clock,
                new EventBudget.Limit(2, Duration.ofHours(1)),
                new EventBudget.Limit(2, Duration.ofHours(1))));
    for (int i = 0; i < 5; i++) {
      reporter.post(
          pod("budget-" + i),
          new PodEvent(PodEvent.Type.Normal, PodEvent.Reason.APPLIED, "tier low"));
    }
    reporter.summarize();
    Event summary = summaryOnNode(3);
    assertThat(summary.getType()).isEqualTo("Normal");
    assertThat(summary.getInvolvedObject().getKind()).isEqualTo("Node");
    assertThat(summary.getMessage()).contains("3 pod Events not posted").contains("(Applied 3)");
    Eventually.value(
        () ->
            client.v1().events().inNamespace(NS).list().getItems().stream()
                .filter(e -> e.getReason().equals("Applied"))
                .filter(e -> e.getInvolvedObject().getName().startsWith("budget-"))
                .count(),
        count -> count == 2,
        Duration.ofSeconds(20),
        "the budget's burst of 2 Applied Events");

    // Four more turned away: the same summary Event, its count now 7, its message the latest.
    for (int i = 5; i < 9; i++) {
      reporter.post(
          pod("budget-" + i),
          new PodEvent(PodEvent.Type.Normal, PodEvent.Reason.APPLIED, "tier low"));
    }
    Eventually.sleep(Duration.ofMillis(1100));
    reporter.summarize();
    Event again = summaryOnNode(7);
    assertThat(again.getMetadata().getName()).isEqualTo(summary.getMetadata().getName());
    assertThat(again.getMessage()).contains("4 pod Events not posted");
  }

  static Event summaryOnNode(int count) {
    return Eventually.value(
            () ->
                client.v1().events().inNamespace("default").list().getItems().stream()
                    .filter(e -> e.getInvolvedObject().getName().equals("node-budget"))
                    .filter(e -> e.getReason().equals("EventsRateLimited"))
                    .toList(),
            events -> events.size() == 1 && events.get(0).getCount() == count,
            Duration.ofSeconds(20),
            "one EventsRateLimited Event on the node with count " + count)
        .get(0);
  }
}
