package dev.ioqos.bench.agent;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;
import javax.xml.xpath.XPath;
import javax.xml.xpath.XPathExpressionException;
import javax.xml.xpath.XPathFactory;
import org.w3c.dom.Document;
import org.xml.sax.SAXException;

/** Command line of the agent benchmark. */
final class Options {
  /**
   * The image's JDK_JAVA_OPTIONS, read from the Jib configuration in operator/pom.xml (the chart's
   * are the same).
   */
  static final String IMAGE_FLAGS = imageFlags(Path.of("operator/pom.xml"));

  /**
   * What the chart's container limits (memory 320Mi, cpu 500m) make the JVM see in a container:
   * MaxRAM is the memory the percentages apply to, one processor for a quota below one CPU.
   */
  static final String CONTAINER_FLAGS = "-XX:MaxRAM=320m -XX:ActiveProcessorCount=1";

  Path out = Path.of("bench-report.md");
  boolean quick;
  Path jar = Path.of("operator/target/ioqos.jar");
  Path kubeApiTest = Path.of(System.getProperty("user.home"), ".kubeapitest");
  Path workRoot = Path.of("/dev/shm");
  int pods = 250;
  int events = 500;
  int churnSeconds = 60;
  int churnRate = 10;
  int idleSeconds = 70;
  int scrapes = 30;
  String jvmFlags = IMAGE_FLAGS + " " + CONTAINER_FLAGS;

  /** Extra environment of the agent's process, NAME=VALUE pairs (the image sets none). */
  String agentEnv = "";

  String commandLine;

  /** The phases after the cold start; all of them unless --only names some. */
  static final List<String> PHASES = List.of("steady", "status", "events", "churn", "scrape");

  List<String> only = PHASES;

  static final String USAGE =
      "usage: agent-bench [--out FILE] [--quick] [--jar ioqos.jar] [--pods N] [--events N]\n"
          + "  [--churn-seconds S] [--churn-rate PER_S] [--idle-seconds S] [--scrapes N]\n"
          + "  [--jvm-flags 'FLAGS'] [--agent-env 'NAME=VALUE ...'] [--kubeapitest DIR]\n"
          + "  [--work-root DIR]\n"
          + "  [--only PHASE,...]  phases after the cold start, of "
          + String.join(",", PHASES)
          + " (footprint and scale need steady and churn); cold: the cold start alone";

  static Options parse(String... args) {
    Options o = new Options();
    o.commandLine = String.join(" ", args);
    List<String> rest = new ArrayList<>(Arrays.asList(args));
    while (!rest.isEmpty()) {
      String flag = rest.remove(0);
      switch (flag) {
        case "--quick" -> {
          o.quick = true;
          o.pods = 250;
          o.events = 100;
          o.churnSeconds = 15;
          o.idleSeconds = 15;
          o.scrapes = 10;
        }
        case "--out" -> o.out = Path.of(value(flag, rest));
        case "--jar" -> o.jar = Path.of(value(flag, rest));
        case "--kubeapitest" -> o.kubeApiTest = Path.of(value(flag, rest));
        case "--work-root" -> o.workRoot = Path.of(value(flag, rest));
        case "--pods" -> o.pods = Integer.parseInt(value(flag, rest));
        case "--events" -> o.events = Integer.parseInt(value(flag, rest));
        case "--churn-seconds" -> o.churnSeconds = Integer.parseInt(value(flag, rest));
        case "--churn-rate" -> o.churnRate = Integer.parseInt(value(flag, rest));
        case "--idle-seconds" -> o.idleSeconds = Integer.parseInt(value(flag, rest));
        case "--scrapes" -> o.scrapes = Integer.parseInt(value(flag, rest));
        case "--jvm-flags" -> o.jvmFlags = value(flag, rest);
        case "--agent-env" -> o.agentEnv = value(flag, rest);
        case "--only" -> {
          String phases = value(flag, rest);
          // "cold": the cold start alone.
          o.only = phases.equals("cold") ? List.of() : List.of(phases.split(","));
          for (String phase : o.only) {
            if (!PHASES.contains(phase)) {
              throw new IllegalArgumentException("unknown phase " + phase + "\n" + USAGE);
            }
          }
        }
        case "-h", "--help" -> {
          System.out.println(USAGE);
          System.exit(0);
        }
        default -> throw new IllegalArgumentException("unknown option " + flag + "\n" + USAGE);
      }
    }
    return o;
  }

  /**
   * The JDK_JAVA_OPTIONS that the Jib configuration in {@code pom} gives the image, with a {@code
   * ${property}} reference resolved from the pom's properties as Maven does.
   */
  static String imageFlags(Path pom) {
    try {
      DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
      factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
      Document doc = factory.newDocumentBuilder().parse(pom.toFile());
      XPath xpath = XPathFactory.newInstance().newXPath();
      String value =
          xpath
              .evaluate(
                  "/project/build/plugins/plugin[artifactId='jib-maven-plugin']"
                      + "/configuration/container/environment/JDK_JAVA_OPTIONS",
                  doc)
              .trim();
      if (value.isEmpty()) {
        throw new IllegalStateException(pom + ": the Jib configuration sets no JDK_JAVA_OPTIONS");
      }
      Matcher ref = Pattern.compile("\\$\\{([^}]+)}").matcher(value);
      StringBuilder resolved = new StringBuilder();
      while (ref.find()) {
        String property = xpath.evaluate("/project/properties/" + ref.group(1), doc).trim();
        if (property.isEmpty()) {
          throw new IllegalStateException(pom + " has no property " + ref.group(1));
        }
        ref.appendReplacement(resolved, Matcher.quoteReplacement(property));
      }
      return ref.appendTail(resolved).toString().trim();
    } catch (IOException e) {
      throw new UncheckedIOException("run the benchmark from the repository's root", e);
    } catch (ParserConfigurationException | SAXException | XPathExpressionException e) {
      throw new IllegalStateException("cannot read " + pom, e);
    }
  }

  boolean runs(String phase) {
    return only.contains(phase);
  }

  Map<String, String> agentEnvMap() {
    Map<String, String> env = new LinkedHashMap<>();
    for (String pair : agentEnv.trim().split("\\s+")) {
      if (!pair.isEmpty()) {
        int eq = pair.indexOf('=');
        if (eq <= 0) {
          throw new IllegalArgumentException("--agent-env takes NAME=VALUE pairs, not " + pair);
        }
        env.put(pair.substring(0, eq), pair.substring(eq + 1));
      }
    }
    return env;
  }

  List<String> jvmFlagList() {
    return jvmFlags.isBlank() ? List.of() : List.of(jvmFlags.trim().split("\\s+"));
  }

  private static String value(String flag, List<String> rest) {
    if (rest.isEmpty()) {
      throw new IllegalArgumentException(flag + " needs a value\n" + USAGE);
    }
    return rest.remove(0);
  }
}
