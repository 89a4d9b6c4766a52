package io.acceld.health;

/**
 * What the health sources report to the agent. Called on their threads; implementations must be
 * quick.
 */
public interface HealthListener extends HealthEvents {
  /** The health marks changed: republish the inventory. */
  void changed();
}
