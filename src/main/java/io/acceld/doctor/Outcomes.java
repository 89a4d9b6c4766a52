package io.acceld.doctor;

import io.acceld.doctor.Bounded.Outcome;

/** How an unfinished piece of the examination reads in a finding. */
final class Outcomes {
  private Outcomes() {}

  /** {@code " within 10s"} for one that ran late, {@code ": <error>"} for one that threw. */
  static String why(Outcome<?> outcome) {
    if (outcome instanceof Outcome.Late<?> late) {
      return " within " + Bounded.shown(late.limit());
    }
    if (outcome instanceof Outcome.Threw<?> threw) {
      return ": " + threw.error();
    }
    return "";
  }
}
