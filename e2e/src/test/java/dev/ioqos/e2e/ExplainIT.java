package dev.ioqos.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ioqos.cli.Main;
import dev.ioqos.core.QosClass;
import io.fabric8.kubernetes.api.model.Pod;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@code ioqos explain} against the real API server and a node tree, as an admin runs it. */
class ExplainIT extends AgentTestSupport {

  @AfterEach
  void clearKubeconfig() {
    System.clearProperty("kubeconfig");
  }

  String explain(Pod pod) {
    Path kubeconfig = TestCluster.get().writeKubeconfig(temp);
    System.setProperty("kubeconfig", kubeconfig.toString());
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    List<String> args =
        new ArrayList<>(List.of("explain", "--pod", namespace + "/" + pod.getMetadata().getName()));
    args.addAll(node.rootOptions());
    int exit =
        Main.execute(
            new PrintWriter(out, true), new PrintWriter(err, true), args.toArray(String[]::new));
    System.out.println(out);
    assertThat(err.toString()).isEmpty();
    assertThat(exit).isZero();
    return out.toString();
  }

  @Test
  void explainsPolicyTierDisksAndCurrentValues() {
    policy("explained", "  defaultTier: high\n");
    startAgent();
    Pod backup = pod("backup", "low", nodeName);
    node.createPod(uid(backup), QosClass.BURSTABLE);
    awaitCap(backup, LOW_CAP);

    String text = explain(backup);

    assertThat(text)
        .contains("policy:   explained (priority 0)")
        .contains("tier:     low (from ANNOTATION)")
        .contains("disk:     254:16 vdb (scheduler bfq, weights via bfq)")
        .contains("desired:  io.bfq.weight default 10")
        .contains("desired:  io.max " + LOW_CAP)
        .contains("current:  io.bfq.weight default 10")
        .contains("current:  io.max " + LOW_CAP);
  }

  @Test
  void explainsAPodNoPolicySelects() {
    startAgent();
    Pod app = pod("app", null, nodeName);

    assertThat(explain(app)).contains("policy:   none selects this pod");
  }

  @Test
  void aBadPodArgumentIsOneSentence() {
    StringWriter err = new StringWriter();
    int exit =
        Main.execute(
            new PrintWriter(new StringWriter()),
            new PrintWriter(err, true),
            "explain",
            "--pod",
            "nope");
    assertThat(exit).isNotZero();
    assertThat(err.toString().strip())
        .isEqualTo("ioqos explain: --pod must be NAMESPACE/NAME, not 'nope'");
  }
}
