package io.acceld.doctor;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * One line of {@code acceld doctor}: what was checked, what was found and, for a failure, the fix
 * an operator should apply. A failure cannot be built without its fix.
 *
 * <p>{@link #check()} names the group ({@code nvml}, {@code gpu}, {@code devices}, {@code kubelet},
 * {@code cdi}, {@code state}, {@code mesos}, {@code agent}); {@link #subject()} names the line
 * within it and is what the text output starts with. {@link #facts()} carries the values a script
 * wants without parsing sentences (strings, integers, booleans or lists of strings).
 */
public sealed interface Finding {
  String check();

  String subject();

  String found();

  Map<String, Object> facts();

  Status status();

  /** The fix, for a failure; empty otherwise. */
  default Optional<String> fix() {
    return Optional.empty();
  }

  /** This finding with {@code key} set in its facts. */
  Finding with(String key, Object value);

  static Pass pass(String check, String subject, String found) {
    return new Pass(check, subject, found, Map.of());
  }

  static Fail fail(String check, String subject, String found, String fix) {
    return new Fail(check, subject, found, fix, Map.of());
  }

  static Skip skip(String check, String subject, String why) {
    return new Skip(check, subject, why, Map.of());
  }

  /** Nothing is wrong. */
  record Pass(String check, String subject, String found, Map<String, Object> facts)
      implements Finding {
    public Pass {
      facts = Checked.facts(check, subject, found, facts);
    }

    @Override
    public Status status() {
      return Status.PASS;
    }

    @Override
    public Pass with(String key, Object value) {
      return new Pass(check, subject, found, Checked.plus(facts, key, value));
    }
  }

  /** Something is wrong; {@code remedy} says what to do about it. */
  record Fail(String check, String subject, String found, String remedy, Map<String, Object> facts)
      implements Finding {
    public Fail {
      facts = Checked.facts(check, subject, found, facts);
      if (remedy == null || remedy.isBlank()) {
        throw new IllegalArgumentException("a failure of " + subject + " needs its fix");
      }
    }

    @Override
    public Status status() {
      return Status.FAIL;
    }

    @Override
    public Optional<String> fix() {
      return Optional.of(remedy);
    }

    @Override
    public Fail with(String key, Object value) {
      return new Fail(check, subject, found, remedy, Checked.plus(facts, key, value));
    }
  }

  /** Not checked, and {@code found} says why (the feature is off, or nothing to check). */
  record Skip(String check, String subject, String found, Map<String, Object> facts)
      implements Finding {
    public Skip {
      facts = Checked.facts(check, subject, found, facts);
    }

    @Override
    public Status status() {
      return Status.SKIP;
    }

    @Override
    public Skip with(String key, Object value) {
      return new Skip(check, subject, found, Checked.plus(facts, key, value));
    }
  }

  /** The records' shared argument checks. */
  final class Checked {
    private Checked() {}

    static Map<String, Object> facts(
        String check, String subject, String found, Map<String, Object> facts) {
      Objects.requireNonNull(check, "check");
      Objects.requireNonNull(subject, "subject");
      Objects.requireNonNull(found, "found");
      return Collections.unmodifiableMap(new LinkedHashMap<>(facts));
    }

    static Map<String, Object> plus(Map<String, Object> facts, String key, Object value) {
      Map<String, Object> more = new LinkedHashMap<>(facts);
      more.put(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, key));
      return more;
    }
  }
}
