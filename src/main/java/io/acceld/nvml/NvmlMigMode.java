package io.acceld.nvml;

/**
 * A GPU's MIG mode: {@code current} now, {@code pending} once the GPU is next reset. They differ
 * between an operator's {@code nvidia-smi -mig} and the reset that applies it.
 */
public record NvmlMigMode(boolean current, boolean pending) {
  public boolean changePending() {
    return current != pending;
  }
}
