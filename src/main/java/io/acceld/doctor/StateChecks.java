package io.acceld.doctor;

import io.acceld.config.AgentConfig;
import io.acceld.config.Settings;
import io.acceld.ledger.Lease;
import io.acceld.ledger.LeaseCheckpoint;
import io.acceld.ledger.LedgerStorage;
import io.acceld.util.LockQuery;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The state directory: writable (or creatable), the lease checkpoint readable and whole, and its
 * lock held by no agent but the one doctor was pointed at. The lock is asked about, never taken
 * ({@link LockQuery} says why).
 */
final class StateChecks {
  static final String CHECK = "state";

  private StateChecks() {}

  /**
   * @param agentAnswers whether a running agent answered {@code --agent}: then a held lock is that
   *     agent's, as expected
   */
  static List<Finding> of(AgentConfig config, boolean agentAnswers) {
    Path dir = config.get(Settings.STATE_DIR);
    List<Finding> findings = new ArrayList<>();
    findings.add(
        Writable.check(
            CHECK,
            "state dir",
            dir,
            "the agent keeps its lease checkpoint there: make it writable for the agent (root),"
                + " mount a writable host directory at --state-dir, or free the disk"));
    findings.add(checkpoint(dir));
    findings.add(lock(dir, agentAnswers));
    return findings;
  }

  private static Finding checkpoint(Path dir) {
    LeaseCheckpoint checkpoint = new LeaseCheckpoint(dir);
    try {
      List<Lease> leases = checkpoint.read();
      Map<String, Integer> byKind = new TreeMap<>();
      leases.forEach(l -> byKind.merge(l.holder().kind().label(), 1, Integer::sum));
      String found =
          leases.isEmpty()
              ? checkpoint.file()
                  + " holds no lease"
                  + (java.nio.file.Files.exists(checkpoint.file()) ? "" : " (not written yet)")
              : checkpoint.file() + " holds " + leases.size() + " lease(s): " + byKind;
      return Finding.pass(CHECK, "state checkpoint", found).with("leases", leases.size());
    } catch (LeaseCheckpoint.UnusableException e) {
      return Finding.fail(
          CHECK,
          "state checkpoint",
          checkpoint.file() + " " + e.getMessage(),
          "nothing is lost for pods: at its next start the agent moves the file aside and starts"
              + " with no leases, and the kubelet's come back from its pod-resources API (Mesos"
              + " tasks' do not: check them). To keep the record now, move it aside yourself (mv "
              + checkpoint.file()
              + " "
              + checkpoint.file()
              + ".bad) and check the disk (dmesg, df) if it happens again");
    }
  }

  private static Finding lock(Path dir, boolean agentAnswers) {
    Path file = dir.resolve(LedgerStorage.LOCK_FILE);
    LockQuery.State state;
    try {
      state = LockQuery.of(file);
    } catch (IOException e) {
      return Finding.fail(
          CHECK,
          "state lock",
          file + " cannot be asked about: " + e.getMessage(),
          "run doctor as root, as the agent runs");
    }
    if (state instanceof LockQuery.State.NoFile) {
      return Finding.pass(CHECK, "state lock", file + " does not exist: no agent runs over " + dir);
    }
    if (state instanceof LockQuery.State.Free free) {
      return Finding.pass(
          CHECK,
          "state lock",
          file
              + " exists but nobody holds it (left by an agent that was killed"
              + (free.pidFileSays().isEmpty() ? "" : ", pid " + free.pidFileSays())
              + "; harmless)");
    }
    LockQuery.State.Held held = (LockQuery.State.Held) state;
    String holder =
        held.pid() > 0
            ? "pid " + held.pid()
            : "a process in another PID namespace (its file says pid " + held.pidFileSays() + ")";
    Finding f;
    if (agentAnswers) {
      f =
          Finding.pass(
              CHECK,
              "state lock",
              file + " is held by " + holder + ", the running agent (it answers --agent)");
    } else {
      f =
          Finding.fail(
              CHECK,
              "state lock",
              file
                  + " is held by "
                  + holder
                  + ": an agent already runs over "
                  + dir
                  + ", and 'acceld run' with these settings would exit (code 6)",
              "if that agent is meant to run, check it instead: acceld doctor --agent"
                  + " http://127.0.0.1:9445 (its --metrics-address); otherwise stop it"
                  + " (systemctl stop acceld"
                  + (held.pid() > 0 ? ", or kill " + held.pid() : "")
                  + ") or give this one its own --state-dir");
    }
    return f.with("held", true).with("pid", held.pid());
  }
}
