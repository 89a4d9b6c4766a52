package io.acceld.doctor;

import io.acceld.config.AgentConfig;
import io.acceld.doctor.Bounded.Outcome;
import io.acceld.transport.UnixGrpc;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;

/**
 * {@code acceld doctor}: examines the node as {@code acceld run} with the same settings would meet
 * it, and says what is wrong and how to fix it. It reads only: it registers nothing, writes no
 * file, creates no directory and takes no lock. Every group of checks runs within the limit, and
 * one that fails or hangs never stops the others.
 */
public final class Doctor {
  private Doctor() {}

  /**
   * @param agent a running agent's metrics address, to check it too
   * @param limit how long each group of checks, and each piece of the examination, may take
   */
  public static Report examine(AgentConfig config, Optional<URI> agent, Duration limit) {
    List<Finding> findings = new ArrayList<>();
    try (Examiner examiner = new Examiner(limit)) {
      Examination e = examiner.examine(config, agent);
      findings.addAll(group(NvmlChecks.CHECK, limit, () -> NvmlChecks.of(e)));
      findings.addAll(group(GpuChecks.CHECK, limit, () -> GpuChecks.of(e)));
      findings.addAll(group(DeviceChecks.CHECK, limit, () -> DeviceChecks.of(e)));
      try (UnixGrpc grpc = new UnixGrpc("acceld-doctor-grpc", 1)) {
        findings.addAll(
            group(
                KubeletChecks.CHECK,
                limit.multipliedBy(2),
                () -> KubeletChecks.of(config, grpc, limit)));
      }
      findings.addAll(group(CdiChecks.CHECK, limit, () -> CdiChecks.of(config)));
      boolean agentAnswers =
          e.agent().map(a -> a.healthz() instanceof AgentAnswers.Answer.Reply).orElse(false);
      findings.addAll(group(StateChecks.CHECK, limit, () -> StateChecks.of(config, agentAnswers)));
      findings.addAll(group(MesosChecks.CHECK, limit, () -> MesosChecks.of(config, limit)));
      findings.addAll(group(AgentChecks.CHECK, limit, () -> AgentChecks.of(e)));
    }
    return new Report(findings);
  }

  /** One group's findings, or one failure saying why the group has none. */
  private static List<Finding> group(String check, Duration limit, Callable<List<Finding>> work) {
    Outcome<List<Finding>> outcome = Bounded.call(check, limit, work);
    if (outcome instanceof Outcome.Done<List<Finding>> done) {
      return done.value();
    }
    return List.of(
        Finding.fail(
            check,
            check,
            "the " + check + " checks did not finish" + Outcomes.why(outcome),
            outcome instanceof Outcome.Late<?>
                ? "something they read blocks (a wedged driver, a hung mount, a peer that"
                    + " accepts and never answers): run doctor again with --log-level debug"
                : "a bug in doctor: report it with the line above"));
  }
}
