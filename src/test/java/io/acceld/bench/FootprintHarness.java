package io.acceld.bench;

import ch.qos.logback.classic.Level;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The agent's start-up and footprint figures of issue 10, measured as an operator runs it: each
 * given command line (the shipped launcher, or {@code java -jar X.jar}) is exec'd with {@code run
 * --simulate} against the real kubelet double, several times, and each figure is reported as the
 * median and range over the runs:
 *
 * <ul>
 *   <li>exec to registered with the kubelet (the double's Register completed), and to the first
 *       ListAndWatch message listing every GPU healthy;
 *   <li>RSS and threads of the JVM from {@code /proc/PID/status} after a settle with metrics and
 *       telemetry on and {@code /metrics} scraped;
 *   <li>idle CPU (utime + stime over a window in which nothing changes), as % of one core, right
 *       after the settle and, with {@code --steady-after N}, again from N seconds after
 *       registering, when warming up is over ({@link FootprintSettings});
 *   <li>the same RSS with 64 simulated GPUs ({@code --simulate-gpus 64}; skipped for an agent that
 *       refuses the flag);
 *   <li>with 8 GPUs shared 128 ways: the ListAndWatch message's size for 1,024 IDs as the double
 *       received it, exec to registered, and RSS.
 * </ul>
 *
 * <p>Several agents ({@code --agent NAME=COMMAND}, e.g. the previous main and this tree) are run
 * alternately, run by run, so a drift of the shared machine falls on both alike. COMMAND is split
 * on spaces; prefix {@code env VAR=value} to set the agent's environment (env execs, so the pid
 * measured is still the JVM's). Arguments: {@code --agent} (repeatable, required), {@code --runs
 * 5}, {@code --settle 10}, {@code --cpu-window 30} and {@code --steady-after 0} (seconds; 0 is no
 * second window), {@code --scrapes 5}, {@code --modes 8,64,1024,dra,dra-tls,mesos} (dra-tls: the
 * API stand-in over HTTPS, as on a cluster), {@code --warm-up 1} (unmeasured starts of each agent
 * first: the kubelet double runs in this JVM, and until its own code is compiled it answered
 * Register hundreds of milliseconds slower, which the first measured runs took for the agent's),
 * {@code --out FILE} for the {@code key value} lines. Run with {@code sh src/jmh/figures.sh --only
 * footprint}, or on the test classpath directly.
 */
public final class FootprintHarness {
  private final Map<String, List<String>> agents;
  private final List<FootprintMode> modes;
  private final FootprintSettings settings;
  private final int runs;
  private final int warmUps;
  private final ProcFacts proc = ProcFacts.forThisMachine();

  /** Per agent, per figure key. */
  private final Map<String, Map<String, Samples>> figures = new LinkedHashMap<>();

  private final List<String> failures = new ArrayList<>();

  private FootprintHarness(
      Map<String, List<String>> agents,
      List<FootprintMode> modes,
      FootprintSettings settings,
      int runs,
      int warmUps) {
    this.agents = agents;
    this.modes = modes;
    this.settings = settings;
    this.runs = runs;
    this.warmUps = warmUps;
    for (String agent : agents.keySet()) {
      Map<String, Samples> mine = new LinkedHashMap<>();
      for (FootprintMode mode : modes) {
        for (Figure f : Figure.of(mode, settings)) {
          mine.put(f.key(), new Samples());
        }
      }
      figures.put(agent, mine);
    }
  }

  /** One figure of the report: its key in the machine-readable lines, its label and precision. */
  private record Figure(String key, String label, int decimals) {
    static List<Figure> of(FootprintMode mode, FootprintSettings settings) {
      String m = mode.name();
      List<Figure> out = new ArrayList<>();
      out.add(new Figure("register_ms_" + m, "exec → registered, " + mode.title() + " (ms)", 0));
      out.add(
          new Figure(
              "healthy_ms_" + m,
              "exec → first ListAndWatch with all healthy, " + mode.title() + " (ms)",
              0));
      out.add(new Figure("rss_mib_" + m, "steady RSS, " + mode.title() + " (MiB)", 1));
      out.add(new Figure("threads_" + m, "threads, " + mode.title(), 0));
      if (mode.idleCpu()) {
        out.add(
            new Figure(
                "idle_cpu_pct_" + m,
                "idle CPU after a "
                    + settings.settle().toSeconds()
                    + " s settle, "
                    + mode.title()
                    + " (% of a core)",
                2));
        if (!settings.steadyAfter().isZero()) {
          out.add(
              new Figure(
                  "idle_cpu_steady_pct_" + m,
                  "idle CPU from "
                      + settings.steadyAfter().toSeconds()
                      + " s after registering, "
                      + mode.title()
                      + " (% of a core)",
                  2));
        }
      }
      if (mode.ids() > 8) {
        out.add(
            new Figure("law_bytes_" + m, "ListAndWatch message, " + mode.title() + " (bytes)", 0));
      }
      return out;
    }
  }

  public static void main(String[] argv) throws Exception {
    // The kubelet double logs each registration at INFO; the report on stdout is the figures.
    ((ch.qos.logback.classic.Logger) LoggerFactory.getLogger(Logger.ROOT_LOGGER_NAME))
        .setLevel(Level.WARN);
    Map<String, List<String>> agents = new LinkedHashMap<>();
    Map<String, String> opts = new LinkedHashMap<>();
    for (int i = 0; i < argv.length; i++) {
      String name = argv[i];
      if (!name.startsWith("--") || i + 1 == argv.length) {
        throw new IllegalArgumentException("expected --option value, got " + name);
      }
      String value = argv[++i];
      if (name.equals("--agent")) {
        int eq = value.indexOf('=');
        String label = eq > 0 ? value.substring(0, eq) : "agent";
        agents.put(label, List.of(value.substring(eq + 1).trim().split("\\s+")));
      } else {
        opts.put(name.substring(2), value);
      }
    }
    if (agents.isEmpty()) {
      throw new IllegalArgumentException("give at least one --agent NAME=COMMAND");
    }
    List<String> wanted =
        Arrays.asList(opts.getOrDefault("modes", "8,64,1024,dra,dra-tls,mesos").split(","));
    List<FootprintMode> modes =
        FootprintMode.ALL.stream().filter(m -> wanted.contains(m.name())).toList();
    FootprintSettings settings =
        new FootprintSettings(
            seconds(opts.getOrDefault("settle", "10")),
            Integer.parseInt(opts.getOrDefault("scrapes", "5")),
            seconds(opts.getOrDefault("cpu-window", "30")),
            seconds(opts.getOrDefault("steady-after", "0")));
    FootprintHarness harness =
        new FootprintHarness(
            agents,
            modes,
            settings,
            Integer.parseInt(opts.getOrDefault("runs", "5")),
            Integer.parseInt(opts.getOrDefault("warm-up", "1")));
    harness.runAll();
    System.out.print(harness.markdown());
    String lines = harness.keyValueLines();
    if (opts.containsKey("out")) {
      Files.writeString(Path.of(opts.get("out")), lines);
    } else {
      System.out.print("\n" + lines);
    }
    System.exit(harness.failures.isEmpty() ? 0 : 1);
  }

  private void runAll() throws InterruptedException {
    FootprintSettings brief =
        new FootprintSettings(Duration.ofSeconds(1), 1, Duration.ofSeconds(1), Duration.ZERO);
    for (int run = 1; run <= warmUps; run++) {
      for (Map.Entry<String, List<String>> agent : agents.entrySet()) {
        try {
          FootprintRun.Result r =
              new FootprintRun(agent.getValue(), modes.get(0), brief, proc).run();
          System.err.printf(
              Locale.ROOT,
              "warm-up %d/%d, %s: registered %.0f ms (not counted)%n",
              run,
              warmUps,
              agent.getKey(),
              r.registeredMs());
        } catch (Exception e) {
          System.err.printf(
              "warm-up %d/%d, %s: %s (not counted)%n", run, warmUps, agent.getKey(), e);
        }
      }
    }
    for (int run = 1; run <= runs; run++) {
      for (FootprintMode mode : modes) {
        for (Map.Entry<String, List<String>> agent : agents.entrySet()) {
          Map<String, Samples> mine = figures.get(agent.getKey());
          if (mine.get("rss_mib_" + mode.name()).isSkipped()) {
            continue;
          }
          String what = String.format("run %d/%d, %s, %s", run, runs, mode.title(), agent.getKey());
          try {
            FootprintRun.Result r = new FootprintRun(agent.getValue(), mode, settings, proc).run();
            record(mine, mode, r);
            System.err.printf(
                Locale.ROOT,
                "%s: registered %.0f ms, all healthy %.0f ms, %d B, RSS %.1f MiB, %d threads,"
                    + " idle CPU %.2f %% (by thread, ms/runs: %s)%s  %s%n",
                what,
                r.registeredMs(),
                r.healthyMs(),
                r.listAndWatchBytes(),
                r.rssMib(),
                r.threads(),
                r.idle().cpuPercent(),
                r.idle().busiestThreads(),
                Double.isNaN(r.steadyIdle().cpuPercent())
                    ? ""
                    : String.format(
                        Locale.ROOT,
                        ", later %.2f %% (by thread: %s)",
                        r.steadyIdle().cpuPercent(),
                        r.steadyIdle().busiestThreads()),
                MesosBridgeHarness.load());
          } catch (FootprintRun.AgentExited e) {
            if (mode.mayBeRefused() && e.log.contains(mode.flags().get(0))) {
              // An older agent without the flag: say so in the row and stop trying this mode.
              String reason = "agent refused " + String.join(" ", mode.flags());
              Figure.of(mode, settings).forEach(f -> mine.get(f.key()).skip(reason));
              System.err.printf("%s: %s (exit %d)%n", what, reason, e.exitCode);
            } else {
              fail(what, e);
            }
          } catch (Exception e) {
            fail(what, e);
          }
        }
      }
    }
  }

  private void fail(String what, Exception e) {
    failures.add(what + ": " + e.getMessage());
    System.err.println(what + " FAILED: " + e.getMessage());
  }

  private static void record(Map<String, Samples> mine, FootprintMode mode, FootprintRun.Result r) {
    String m = mode.name();
    mine.get("register_ms_" + m).add(r.registeredMs());
    mine.get("healthy_ms_" + m).add(r.healthyMs());
    mine.get("rss_mib_" + m).add(r.rssMib());
    mine.get("threads_" + m).add(r.threads());
    if (mode.idleCpu()) {
      mine.get("idle_cpu_pct_" + m).add(r.idle().cpuPercent());
      Samples steady = mine.get("idle_cpu_steady_pct_" + m);
      if (steady != null) {
        steady.add(r.steadyIdle().cpuPercent());
      }
    }
    if (mode.ids() > 8) {
      mine.get("law_bytes_" + m).add(r.listAndWatchBytes());
    }
  }

  private String markdown() {
    StringBuilder out = new StringBuilder();
    out.append(
        String.format(
            Locale.ROOT,
            "Footprint: %d run(s) per agent, alternated; settle %d s, %d scrapes, idle CPU over"
                + " %d s%s; %d cores; %s after the runs%n%n",
            runs,
            settings.settle().toSeconds(),
            settings.scrapes(),
            settings.cpuWindow().toSeconds(),
            settings.steadyAfter().isZero()
                ? ""
                : " (and again from "
                    + settings.steadyAfter().toSeconds()
                    + " s after registering)",
            Runtime.getRuntime().availableProcessors(),
            MesosBridgeHarness.load()));
    out.append("| figure |");
    agents.keySet().forEach(a -> out.append(' ').append(a).append(" median (range) |"));
    out.append("\n|---|");
    agents.keySet().forEach(a -> out.append("---:|"));
    out.append('\n');
    for (FootprintMode mode : modes) {
      if (skippedByAll(mode)) {
        // One row, not one per figure, for a mode no agent could run (a flag none has yet).
        out.append("| ").append(mode.title()).append(" |");
        for (String agent : agents.keySet()) {
          out.append(" skipped: ")
              .append(figures.get(agent).get("rss_mib_" + mode.name()).skipReason())
              .append(" |");
        }
        out.append('\n');
        continue;
      }
      for (Figure f : Figure.of(mode, settings)) {
        out.append("| ").append(f.label()).append(" |");
        for (String agent : agents.keySet()) {
          out.append(' ').append(figures.get(agent).get(f.key()).cell(f.decimals())).append(" |");
        }
        out.append('\n');
      }
    }
    failures.forEach(f -> out.append("\nFAILED ").append(f.replace('\n', ' ')).append('\n'));
    return out.toString();
  }

  private boolean skippedByAll(FootprintMode mode) {
    return figures.values().stream()
        .allMatch(
            mine ->
                mine.get("rss_mib_" + mode.name()).isSkipped()
                    && mine.get("rss_mib_" + mode.name()).count() == 0);
  }

  /** {@code agent.key median min max n}, or {@code agent.key skipped reason}: one line a figure. */
  private String keyValueLines() {
    StringBuilder out = new StringBuilder();
    for (String agent : agents.keySet()) {
      for (FootprintMode mode : modes) {
        for (Figure f : Figure.of(mode, settings)) {
          Samples s = figures.get(agent).get(f.key());
          out.append(agent).append('.').append(f.key()).append(' ');
          if (s.count() == 0) {
            out.append(s.isSkipped() ? "skipped " + s.skipReason() : "none");
          } else {
            out.append(
                String.format(
                    Locale.ROOT, "%.3f %.3f %.3f %d", s.median(), s.min(), s.max(), s.count()));
          }
          out.append('\n');
        }
      }
    }
    return out.toString();
  }

  private static Duration seconds(String value) {
    return Duration.ofMillis(Math.round(Double.parseDouble(value) * 1000));
  }
}
