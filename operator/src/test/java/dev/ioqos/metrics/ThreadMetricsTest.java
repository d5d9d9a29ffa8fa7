package dev.ioqos.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ThreadMetricsTest {
  final AtomicLong nanos = new AtomicLong(1_000_000_000L);
  final AtomicInteger listings = new AtomicInteger();
  final ThreadMXBean real = ManagementFactory.getThreadMXBean();
  final ThreadMXBean counting =
      (ThreadMXBean)
          Proxy.newProxyInstance(
              ThreadMXBean.class.getClassLoader(),
              new Class<?>[] {ThreadMXBean.class},
              (proxy, method, args) -> {
                if (method.getName().equals("getThreadInfo")) {
                  listings.incrementAndGet();
                }
                return method.invoke(real, args);
              });

  @Test
  void theSeriesAreMicrometersOwnLineForLineButValues() {
    PrometheusMeterRegistry ours = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    new ThreadMetrics(real, ThreadMetrics.STATES_AGE, System::nanoTime).bindTo(ours);
    PrometheusMeterRegistry micrometers = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    new JvmThreadMetrics().bindTo(micrometers);
    System.gc(); // gauges must survive: the registry holds their objects weakly unless told

    List<String> expected = withoutValues(micrometers.scrape());
    assertThat(expected).hasSizeGreaterThan(15);
    assertThat(withoutValues(ours.scrape())).isEqualTo(expected);
    assertThat(ours.scrape())
        .doesNotContain("NaN")
        .contains("jvm_threads_states_threads{state=\"timed-waiting\"}");
  }

  @Test
  void oneListingOfTheThreadsServesAllSixStatesOfAScrape() {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    new ThreadMetrics(counting, Duration.ofMillis(100), nanos::get).bindTo(registry);

    String text = registry.scrape();
    assertThat(listings).hasValue(1);
    double sum = 0;
    for (String line : text.lines().toList()) {
      if (line.startsWith("jvm_threads_states_threads{")) {
        sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
      }
    }
    assertThat(sum).as("every listed thread in one state").isPositive();

    nanos.addAndGet(Duration.ofMillis(100).toNanos());
    registry.scrape();
    assertThat(listings).as("the next scrape lists again").hasValue(2);
  }

  private static List<String> withoutValues(String text) {
    return text.lines()
        .map(line -> line.startsWith("#") ? line : line.substring(0, line.lastIndexOf(' ')))
        .toList();
  }
}
