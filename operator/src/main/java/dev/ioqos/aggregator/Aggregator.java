package dev.ioqos.aggregator;

import dev.ioqos.api.v1alpha1.IoPolicy;
import dev.ioqos.api.v1alpha1.IoPolicyStatus;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElectionConfigBuilder;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaseLock;
import io.javaoperatorsdk.operator.Operator;
import java.time.Clock;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code ioqos aggregate}: competes for a Lease with fabric8's {@code LeaderElector}; only while it
 * holds the lease does it run the {@link PolicyStatusReconciler} (a JOSDK operator started for each
 * term and stopped when the term ends), and its writer refuses to write once leadership is lost, so
 * two replicas never both write IoPolicy status. After losing the lease it competes again as a
 * follower; {@link #close()} releases the lease so that another replica takes over at once.
 */
public final class Aggregator implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Aggregator.class);

  private final AggregatorConfig config;
  private final KubernetesClient client;
  private final Clock clock;
  private final AtomicLong writes = new AtomicLong();

  /** Starts and stops the operator, one term after the other, off the elector's threads. */
  private final ExecutorService lifecycle =
      Executors.newSingleThreadExecutor(
          r -> {
            Thread thread = new Thread(r, "ioqos-aggregator-lifecycle");
            thread.setDaemon(true);
            return thread;
          });

  private volatile boolean leading;
  private volatile boolean closed;
  private volatile String leader;
  private CompletableFuture<?> election;
  private volatile Operator operator;

  public Aggregator(AggregatorConfig config, KubernetesClient client) {
    this(config, client, Clock.systemUTC());
  }

  public Aggregator(AggregatorConfig config, KubernetesClient client, Clock clock) {
    this.config = config;
    this.client = client;
    this.clock = clock;
  }

  /** Joins the election and returns; aggregation starts when this replica becomes the leader. */
  public synchronized void start() {
    if (election != null) {
      throw new IllegalStateException("the aggregator was already started");
    }
    LOG.info(
        "ioqos aggregator {} competing for lease {}/{}",
        config.identity(),
        config.leaseNamespace(),
        config.leaseName());
    campaign();
  }

  private synchronized void campaign() {
    if (closed) {
      return;
    }
    election =
        client
            .leaderElector()
            .withConfig(
                new LeaderElectionConfigBuilder()
                    .withName(config.leaseName())
                    .withLock(
                        new LeaseLock(
                            config.leaseNamespace(), config.leaseName(), config.identity()))
                    .withLeaseDuration(config.leaseDuration())
                    .withRenewDeadline(config.renewDeadline())
                    .withRetryPeriod(config.retryPeriod())
                    .withReleaseOnCancel(true)
                    .withLeaderCallbacks(
                        new LeaderCallbacks(
                            this::startedLeading, this::stoppedLeading, this::newLeader))
                    .build())
            .build()
            .start();
    // The elector ends when this replica loses the lease (or could not renew it in time); a
    // replica that lost it is a follower again, not a process that waits forever.
    election.whenComplete(
        (done, error) -> {
          if (!closed) {
            LOG.info("aggregator {} is no longer leading; competing again", config.identity());
            campaign();
          }
        });
  }

  private void startedLeading() {
    leading = true;
    LOG.info("aggregator {} is now the leader: folding IoNodeStates", config.identity());
    submit(this::startOperator);
  }

  private void stoppedLeading() {
    if (leading) {
      LOG.info("aggregator {} stopped leading", config.identity());
    }
    leading = false;
    CompletableFuture<?> term = currentElection();
    submit(
        () -> {
          stopOperator();
          // Normally the elector has ended already; should it not have (an error while it
          // released), end it so that this replica competes again.
          if (term != null) {
            term.cancel(true);
          }
        });
  }

  private synchronized CompletableFuture<?> currentElection() {
    return election;
  }

  private void submit(Runnable task) {
    try {
      lifecycle.execute(task);
    } catch (java.util.concurrent.RejectedExecutionException e) {
      // Closed: close() stops the operator itself.
    }
  }

  private void newLeader(String identity) {
    leader = identity;
  }

  private void startOperator() {
    if (!leading || closed || operator != null) {
      return;
    }
    Operator started =
        new Operator(o -> o.withKubernetesClient(client).withCloseClientOnStop(false));
    try {
      started.register(new PolicyStatusReconciler(this::writeStatus, clock));
      started.start();
      operator = started;
    } catch (RuntimeException e) {
      LOG.error(
          "aggregator {} could not start watching IoPolicies and IoNodeStates; giving up the"
              + " lease: {}",
          config.identity(),
          e.getMessage(),
          e);
      stopQuietly(started);
      CompletableFuture<?> term = currentElection();
      if (term != null) {
        term.cancel(true);
      }
    }
    if (!leading) {
      // The term ended while the informers were syncing.
      stopOperator();
    }
  }

  private void stopOperator() {
    if (operator != null && !leading) {
      stopQuietly(operator);
      operator = null;
    }
  }

  private static void stopQuietly(Operator operator) {
    try {
      operator.stop();
    } catch (RuntimeException e) {
      LOG.warn("stopping the aggregation failed: {}", e.getMessage());
    }
  }

  /** The status writer: a replica that is not (or no longer) the leader never writes. */
  private Optional<String> writeStatus(IoPolicy policy, IoPolicyStatus status) {
    if (!leading) {
      LOG.debug("not the leader: status of IoPolicy {} left alone", policy.getMetadata().getName());
      return Optional.empty();
    }
    IoPolicy copy = client.getKubernetesSerialization().clone(policy);
    copy.setStatus(status);
    // Optimistic locking on the cached resourceVersion: a conflict is retried by JOSDK with the
    // newer object, so a stale cache never overwrites a newer status.
    IoPolicy stored = client.resource(copy).updateStatus();
    writes.incrementAndGet();
    LOG.debug(
        "IoPolicy {}: nodes {}/{}/{}",
        policy.getMetadata().getName(),
        status.getNodes().getSelected(),
        status.getNodes().getApplied(),
        status.getNodes().getFailed());
    return Optional.ofNullable(stored.getMetadata().getResourceVersion());
  }

  /** True while this replica holds the lease. */
  public boolean leading() {
    return leading;
  }

  /** True while this replica holds the lease and its informers are synced. */
  public boolean aggregating() {
    return leading && operator != null;
  }

  /** The identity that last held the lease as this replica saw it, or null. */
  public String leader() {
    return leader;
  }

  /** Status writes this replica made, over all its terms. */
  public long statusWrites() {
    return writes.get();
  }

  public AggregatorConfig config() {
    return config;
  }

  /** Stops aggregating, releases the lease if held, and leaves the election. */
  @Override
  public void close() {
    CompletableFuture<?> current;
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      current = election;
    }
    if (current != null) {
      // Cancelling runs the elector's stopLeading: it releases the lease and calls back.
      current.cancel(true);
    }
    leading = false;
    submit(this::stopOperator);
    lifecycle.shutdown();
    try {
      if (!lifecycle.awaitTermination(30, TimeUnit.SECONDS)) {
        LOG.warn("the aggregation did not stop within 30s");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
