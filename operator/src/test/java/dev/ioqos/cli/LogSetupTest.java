package dev.ioqos.cli;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class LogSetupTest {
  @Test
  void oneLineOnStderrIoqosAtTheLevelAskedTheRestAtWarn() {
    LoggerContext context = new LoggerContext();

    LogSetup.apply(context, "debug");

    ch.qos.logback.classic.Logger root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    assertThat(root.getLevel()).isEqualTo(Level.WARN);
    assertThat(context.getLogger("dev.ioqos").getLevel()).isEqualTo(Level.DEBUG);
    assertThat(context.getLogger("dev.ioqos.agent.PodHandler").getEffectiveLevel())
        .isEqualTo(Level.DEBUG);
    assertThat(context.getLogger("io.fabric8.kubernetes").getEffectiveLevel())
        .isEqualTo(Level.WARN);
    assertThat(context.getLogger("io.javaoperatorsdk").getLevel()).isEqualTo(Level.WARN);
    ConsoleAppender<ILoggingEvent> appender =
        (ConsoleAppender<ILoggingEvent>) root.getAppender("STDERR");
    assertThat(appender.isStarted()).isTrue();
    assertThat(appender.getTarget()).isEqualTo("System.err");
    assertThat(((PatternLayoutEncoder) appender.getEncoder()).getPattern())
        .isEqualTo("%d{yyyy-MM-dd'T'HH:mm:ss.SSSXXX} %-5level [%thread] %logger{24} - %msg%n");
  }

  @Test
  void levelDefaultsToInfoAndIgnoresWhatIsNotALevel() {
    assertThat(LogSetup.level(null)).isEqualTo(Level.INFO);
    assertThat(LogSetup.level(" ")).isEqualTo(Level.INFO);
    assertThat(LogSetup.level("warn")).isEqualTo(Level.WARN);
    assertThat(LogSetup.level("TRACE")).isEqualTo(Level.TRACE);
    assertThat(LogSetup.level("loud")).isEqualTo(Level.INFO);
  }

  @Test
  void logbackFindsItAsAServiceAndLetsTheTestsXmlWin() throws Exception {
    Path service = Path.of("src/main/resources/META-INF/services/" + Configurator.class.getName());
    assertThat(Files.readString(service, StandardCharsets.UTF_8).trim())
        .isEqualTo(LogSetup.class.getName());
    // This class path holds logback-test.xml: logback's own configurators must still run.
    LogSetup setup = new LogSetup();
    LoggerContext context = new LoggerContext();
    setup.setContext(context);
    assertThat(setup.configure(context)).isEqualTo(Configurator.ExecutionStatus.INVOKE_NEXT_IF_ANY);
    assertThat(context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME).getAppender("STDERR")).isNull();
  }
}
