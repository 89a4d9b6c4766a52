package io.acceld.nvml;

/** A MIG device's handle with its MIG index on the parent (what {@code "<gpu>:<index>"} names). */
public record NvmlMigHandle(int migIndex, NvmlDevice device) {}
