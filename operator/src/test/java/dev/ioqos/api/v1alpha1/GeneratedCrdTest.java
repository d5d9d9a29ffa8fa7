package dev.ioqos.api.v1alpha1;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceColumnDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionVersion;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;
import io.fabric8.kubernetes.api.model.apiextensions.v1.ValidationRule;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The CRDs the generator wrote (process-classes) carry every admission rule of DESIGN.md. That the
 * API server enforces them is proven against a real kube-apiserver in the e2e module.
 */
class GeneratedCrdTest {
  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

  private static final CustomResourceDefinition POLICY = load("iopolicies.ioqos.dev-v1.yml");
  private static final CustomResourceDefinition NODE_STATE = load("ionodestates.ioqos.dev-v1.yml");

  static CustomResourceDefinition load(String file) {
    String resource = "META-INF/fabric8/" + file;
    try (InputStream in = GeneratedCrdTest.class.getClassLoader().getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException(
            resource + " is not on the test classpath: run through Maven (process-classes)");
      }
      return SERIALIZATION.unmarshal(in, CustomResourceDefinition.class);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static CustomResourceDefinitionVersion version(CustomResourceDefinition crd) {
    assertThat(crd.getSpec().getVersions()).hasSize(1);
    return crd.getSpec().getVersions().get(0);
  }

  /** Walks {@code properties} by name; {@code []} steps into array items. */
  private static JSONSchemaProps schema(CustomResourceDefinition crd, String... path) {
    JSONSchemaProps props = version(crd).getSchema().getOpenAPIV3Schema();
    for (String step : path) {
      props = step.equals("[]") ? props.getItems().getSchema() : props.getProperties().get(step);
      assertThat(props).as("schema at %s", String.join(".", path)).isNotNull();
    }
    return props;
  }

  private static List<String> rules(JSONSchemaProps props) {
    return props.getXKubernetesValidations().stream().map(ValidationRule::getRule).toList();
  }

  private static ValidationRule rule(JSONSchemaProps props, String containing) {
    return props.getXKubernetesValidations().stream()
        .filter(r -> r.getRule().contains(containing))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no rule containing " + containing));
  }

  @Test
  void bothAreClusterScopedInTheIoqosGroupWithStatusSubresource() {
    for (CustomResourceDefinition crd : List.of(POLICY, NODE_STATE)) {
      assertThat(crd.getSpec().getGroup()).isEqualTo("ioqos.dev");
      assertThat(crd.getSpec().getScope()).isEqualTo("Cluster");
      assertThat(version(crd).getName()).isEqualTo("v1alpha1");
      assertThat(version(crd).getSubresources().getStatus()).isNotNull();
    }
    assertThat(POLICY.getMetadata().getName()).isEqualTo("iopolicies.ioqos.dev");
    assertThat(POLICY.getSpec().getNames().getShortNames()).containsExactly("iop");
    assertThat(NODE_STATE.getMetadata().getName()).isEqualTo("ionodestates.ioqos.dev");
    assertThat(NODE_STATE.getSpec().getNames().getShortNames()).containsExactly("ions");
  }

  @Test
  void printerColumns() {
    assertThat(version(POLICY).getAdditionalPrinterColumns())
        .extracting(CustomResourceColumnDefinition::getName)
        .contains("Priority", "Mode", "Ready", "Nodes", "Applied", "Failed", "Age");
    assertThat(version(POLICY).getAdditionalPrinterColumns())
        .filteredOn(c -> c.getName().equals("Ready"))
        .extracting(CustomResourceColumnDefinition::getJsonPath)
        .containsExactly(".status.conditions[?(@.type==\"Ready\")].status");
    assertThat(version(NODE_STATE).getAdditionalPrinterColumns())
        .extracting(CustomResourceColumnDefinition::getJsonPath)
        .contains(
            ".status.cgroup.version",
            ".status.cgroup.ioControllerEnabled",
            ".status.kernel.iocost",
            ".status.kernel.ioLatency",
            ".status.kernel.psi",
            ".status.pods.managed",
            ".status.pods.failed");
  }

  @Test
  void specIsRequired() {
    ValidationRule rule = rule(schema(POLICY), "has(self.spec)");
    assertThat(rule.getFieldPath()).isEqualTo(".spec");
  }

  @Test
  void specDefaults() {
    assertThat(schema(POLICY, "spec", "priority").getDefault().asInt()).isZero();
    assertThat(schema(POLICY, "spec", "tierAnnotation").getDefault().asText())
        .isEqualTo("ioqos.dev/tier");
    JSONSchemaProps mode = schema(POLICY, "spec", "mode");
    assertThat(mode.getDefault().asText()).isEqualTo("Enforce");
    assertThat(mode.getEnum())
        .extracting(Object::toString)
        .containsExactly("\"DryRun\"", "\"Enforce\"");
  }

  @Test
  void tiersAreRequiredBoundedAndUniquelyNamed() {
    JSONSchemaProps spec = schema(POLICY, "spec");
    JSONSchemaProps tiers = schema(POLICY, "spec", "tiers");

    assertThat(spec.getRequired()).contains("tiers");
    assertThat(tiers.getMinItems()).isEqualTo(1);
    assertThat(tiers.getMaxItems()).isEqualTo(IoPolicySpec.MAX_TIERS);
    assertThat(rules(tiers))
        .anyMatch(r -> r.contains("exists_one(u, has(u.name) && u.name == t.name)"));
  }

  @Test
  void tierFields() {
    JSONSchemaProps tier = schema(POLICY, "spec", "tiers", "[]");
    JSONSchemaProps name = schema(POLICY, "spec", "tiers", "[]", "name");
    JSONSchemaProps weight = schema(POLICY, "spec", "tiers", "[]", "weight");
    JSONSchemaProps latency = schema(POLICY, "spec", "tiers", "[]", "latencyTarget");

    assertThat(tier.getRequired()).containsExactly("name");
    assertThat(rules(tier))
        .contains("has(self.weight) || has(self.latencyTarget) || has(self.limits)");
    assertThat(name.getPattern()).isEqualTo("^[a-z0-9]([-a-z0-9]*[a-z0-9])?$");
    assertThat(name.getMaxLength()).isEqualTo(63);
    assertThat(weight.getMinimum()).isEqualTo(1.0);
    assertThat(weight.getMaximum()).isEqualTo(10000.0);
    assertThat(latency.getMaxLength()).isNotNull();
    assertThat(rules(latency))
        .containsExactly(
            "self.matches('^[0-9]{1,9}(us|ms|s)$')",
            "!self.matches('^[0-9]{1,9}(us|ms|s)$') || duration(self) > duration('0s')");
  }

  @Test
  void byteLimitsArePositiveWholeQuantitiesAndIopsPositive() {
    for (String field : List.of("readBytesPerSecond", "writeBytesPerSecond")) {
      JSONSchemaProps limit = schema(POLICY, "spec", "tiers", "[]", "limits", field);
      assertThat(limit.getXKubernetesIntOrString()).isTrue();
      assertThat(rules(limit))
          .containsExactly(
              "type(self) == int || isQuantity(self)",
              "type(self) == int ? self > 0 : (!isQuantity(self) ||"
                  + " quantity(self).isGreaterThan(quantity('0')))",
              "type(self) == int || !isQuantity(self) || quantity(self).isInteger()");
      assertThat(limit.getXKubernetesValidations())
          .allSatisfy(r -> assertThat(r.getMessage()).startsWith(field + " must"));
    }
    for (String field : List.of("readIOPS", "writeIOPS")) {
      JSONSchemaProps iops = schema(POLICY, "spec", "tiers", "[]", "limits", field);
      assertThat(iops.getType()).isEqualTo("integer");
      assertThat(iops.getMinimum()).isEqualTo(1.0);
    }
  }

  @Test
  void defaultTierAndTierFromMustNameATier() {
    JSONSchemaProps spec = schema(POLICY, "spec");

    assertThat(rule(spec, "self.defaultTier").getFieldPath()).isEqualTo(".defaultTier");
    assertThat(rule(spec, "self.tierFrom.priorityClasses[k]").getFieldPath())
        .isEqualTo(".tierFrom.priorityClasses");
    assertThat(rule(spec, "self.tierFrom.qosClasses[k]").getFieldPath())
        .isEqualTo(".tierFrom.qosClasses");
    assertThat(schema(POLICY, "spec", "defaultTier").getPattern())
        .isEqualTo(IoPolicySpec.DNS_LABEL);
    for (String map : List.of("priorityClasses", "qosClasses")) {
      JSONSchemaProps values =
          schema(POLICY, "spec", "tierFrom", map).getAdditionalProperties().getSchema();
      assertThat(values.getPattern()).isEqualTo(IoPolicySpec.DNS_LABEL);
      assertThat(values.getMaxLength()).isEqualTo(63);
    }
  }

  @Test
  void qosClassKeysAreTheThreeKubernetesClasses() {
    JSONSchemaProps qos = schema(POLICY, "spec", "tierFrom", "qosClasses");

    assertThat(qos.getMaxProperties()).isEqualTo(3);
    assertThat(rules(qos))
        .containsExactly("self.all(k, k in ['Guaranteed', 'Burstable', 'BestEffort'])");
    assertThat(schema(POLICY, "spec", "tierFrom", "priorityClasses").getMaxProperties())
        .isEqualTo(TierFrom.MAX_PRIORITY_CLASSES);
  }

  @Test
  void devicesSetExactlyOneAbsoluteSelector() {
    JSONSchemaProps devices = schema(POLICY, "spec", "devices");
    JSONSchemaProps path = schema(POLICY, "spec", "devices", "[]", "path");
    JSONSchemaProps name = schema(POLICY, "spec", "devices", "[]", "name");

    assertThat(devices.getMaxItems()).isEqualTo(IoPolicySpec.MAX_DEVICES);
    assertThat(rules(devices.getItems().getSchema()))
        .containsExactly(
            "(has(self.kubeletRoot) ? 1 : 0) + (has(self.path) ? 1 : 0) + (has(self.name) ? 1 :"
                + " 0) + (has(self.podVolumes) ? 1 : 0) == 1");
    JSONSchemaProps names = schema(POLICY, "spec", "devices", "[]", "podVolumes", "names");
    assertThat(names.getMaxItems()).isEqualTo(32L);
    assertThat(names.getItems().getSchema().getMaxLength()).isEqualTo(63L);
    assertThat(rules(names)).hasSize(2);
    assertThat(schema(POLICY, "spec", "devices", "[]", "kubeletRoot").getType())
        .isEqualTo("object");
    assertThat(rules(path)).contains("self.startsWith('/')", "!self.matches('(^|/)[.][.]?(/|$)')");
    assertThat(rules(name))
        .contains(
            "self.startsWith('/dev/') && size(self) > 5", "!self.matches('(^|/)[.][.]?(/|$)')");
  }

  @Test
  void tierAnnotationIsAnAnnotationKey() {
    JSONSchemaProps annotation = schema(POLICY, "spec", "tierAnnotation");

    assertThat(annotation.getPattern()).isEqualTo(IoPolicySpec.ANNOTATION_KEY);
    assertThat("ioqos.dev/tier").matches(annotation.getPattern());
    assertThat("tier").matches(annotation.getPattern());
    assertThat("ioqos.dev/bad key!").doesNotMatch(annotation.getPattern());
    assertThat("/tier").doesNotMatch(annotation.getPattern());
  }

  @Test
  void everyRuleSaysWhatIsWrongAndEveryStringItReadsIsBounded() {
    for (CustomResourceDefinition crd : List.of(POLICY, NODE_STATE)) {
      List<String> problems = new ArrayList<>();
      walk("", version(crd).getSchema().getOpenAPIV3Schema(), problems);
      assertThat(problems).as(crd.getMetadata().getName()).isEmpty();
    }
  }

  /** Rules need a message; strings and lists a CEL rule can see need a bound (cost budget). */
  private static void walk(String path, JSONSchemaProps props, List<String> problems) {
    for (ValidationRule rule : props.getXKubernetesValidations()) {
      if (rule.getMessage() == null && rule.getMessageExpression() == null) {
        problems.add(path + ": rule without message: " + rule.getRule());
      }
      if (rule.getReason() == null) {
        problems.add(path + ": rule without reason: " + rule.getRule());
      }
    }
    if ("string".equals(props.getType())
        && props.getEnum().isEmpty()
        && props.getMaxLength() == null
        && !props.getXKubernetesValidations().isEmpty()) {
      problems.add(path + ": string with CEL rules but no maxLength");
    }
    for (Map.Entry<String, JSONSchemaProps> child : props.getProperties().entrySet()) {
      walk(path + "." + child.getKey(), child.getValue(), problems);
    }
    if (props.getItems() != null && props.getItems().getSchema() != null) {
      walk(path + "[]", props.getItems().getSchema(), problems);
    }
    if (props.getAdditionalProperties() != null
        && props.getAdditionalProperties().getSchema() != null) {
      walk(path + "{}", props.getAdditionalProperties().getSchema(), problems);
    }
  }

  @Test
  void nodeStateListsAreBounded() {
    assertThat(schema(NODE_STATE, "status", "pods", "failures").getMaxItems())
        .isEqualTo(PodCounts.MAX_FAILURES)
        .isEqualTo(50);
    assertThat(schema(NODE_STATE, "status", "pods", "failures", "[]", "message").getMaxLength())
        .isEqualTo(PodFailure.MAX_MESSAGE_LENGTH);
    assertThat(schema(NODE_STATE, "status", "devices").getMaxItems())
        .isEqualTo(IoNodeStateStatus.MAX_DEVICES);
    assertThat(schema(NODE_STATE, "status", "devices", "[]", "weightMechanism").getEnum())
        .extracting(Object::toString)
        .containsExactly("\"bfq\"", "\"iocost\"", "\"none\"");
  }
}
