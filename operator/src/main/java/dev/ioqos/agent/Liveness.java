package dev.ioqos.agent;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Whether the agent still makes progress, for {@code /healthz}: the periodic loop (node state,
 * resync, slice step) beats at least every second, and no pod pass runs for longer than a pass ever
 * should (a kernel write stuck in the block layer, a lock never released). A process that answers
 * HTTP but does neither is stuck, and kubelet's liveness probe should restart it.
 */
public final class Liveness {
  private final Clock clock;
  private final Duration periodicStall;
  private final Duration passStall;
  private final Instant created;
  private volatile Instant lastBeat;
  private final Map<Thread, Pass> inFlight = new ConcurrentHashMap<>();

  private record Pass(String pod, Instant since) {}

  /**
   * @param periodicStall how long the periodic loop may go without a beat (it also runs the resync,
   *     so this must exceed the longest resync)
   * @param passStall how long one pod pass may run
   */
  public Liveness(Clock clock, Duration periodicStall, Duration passStall) {
    this.clock = clock;
    this.periodicStall = periodicStall;
    this.passStall = passStall;
    this.created = clock.instant();
  }

  /** The periodic loop ran. */
  public void beat() {
    lastBeat = clock.instant();
  }

  /** A pod pass starts on this thread; {@link #passEnded()} in a finally block. */
  public void passStarted(String pod) {
    inFlight.put(Thread.currentThread(), new Pass(pod, clock.instant()));
  }

  public void passEnded() {
    inFlight.remove(Thread.currentThread());
  }

  /** Why the agent is stuck, or empty while it makes progress. */
  public Optional<String> problem() {
    Instant now = clock.instant();
    Instant beat = lastBeat == null ? created : lastBeat;
    Duration quiet = Duration.between(beat, now);
    if (quiet.compareTo(periodicStall) > 0) {
      return Optional.of(
          "the periodic loop (node state, resync) has not run for " + quiet.toSeconds() + "s");
    }
    return inFlight.values().stream()
        .min(Comparator.comparing(Pass::since))
        .filter(pass -> Duration.between(pass.since(), now).compareTo(passStall) > 0)
        .map(
            pass ->
                "the pass of pod "
                    + pass.pod()
                    + " has run for "
                    + Duration.between(pass.since(), now).toSeconds()
                    + "s");
  }
}
