package dev.ioqos.cli;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.spi.ContextAwareBase;
import java.util.Locale;

/**
 * The agent's logging, set up in code rather than from a logback.xml: one line per event on stderr,
 * as a DaemonSet's log collector expects; {@code dev.ioqos} at {@code IOQOS_LOG_LEVEL} (default
 * INFO), everything else at WARN. Parsing an XML configuration loaded about 400 classes (logback's
 * Joran and the JDK's XML parser) into every agent's metaspace for these few lines.
 *
 * <p>A {@code logback-test.xml} on the class path, or {@code -Dlogback.configurationFile}, still
 * wins: logback's own configurators run then.
 */
public final class LogSetup extends ContextAwareBase implements Configurator {
  static final String PATTERN =
      "%d{yyyy-MM-dd'T'HH:mm:ss.SSSXXX} %-5level [%thread] %logger{24} - %msg%n";

  @Override
  public ExecutionStatus configure(LoggerContext context) {
    if (System.getProperty("logback.configurationFile") != null
        || LogSetup.class.getClassLoader().getResource("logback-test.xml") != null) {
      return ExecutionStatus.INVOKE_NEXT_IF_ANY;
    }
    apply(context, System.getenv("IOQOS_LOG_LEVEL"));
    return ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY;
  }

  /** Sets up {@code context}: the stderr appender and the levels. */
  static void apply(LoggerContext context, String ioqosLevel) {
    PatternLayoutEncoder encoder = new PatternLayoutEncoder();
    encoder.setContext(context);
    encoder.setPattern(PATTERN);
    encoder.start();
    ConsoleAppender<ILoggingEvent> stderr = new ConsoleAppender<>();
    stderr.setContext(context);
    stderr.setName("STDERR");
    stderr.setTarget("System.err");
    stderr.setEncoder(encoder);
    stderr.start();
    ch.qos.logback.classic.Logger root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    root.setLevel(Level.WARN);
    root.addAppender(stderr);
    context.getLogger("dev.ioqos").setLevel(level(ioqosLevel));
    context.getLogger("io.javaoperatorsdk").setLevel(Level.WARN);
    context.getLogger("io.fabric8").setLevel(Level.WARN);
  }

  /** The level IOQOS_LOG_LEVEL names (any case), INFO when unset or not a level. */
  static Level level(String name) {
    return name == null || name.isBlank()
        ? Level.INFO
        : Level.toLevel(name.trim().toUpperCase(Locale.ROOT), Level.INFO);
  }
}
