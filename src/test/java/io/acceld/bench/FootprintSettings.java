package io.acceld.bench;

import java.time.Duration;

/**
 * How long each run lets the agent settle before RSS is read, how many scrapes of /metrics it makes
 * first (so the exposition's classes and buffers are in the figure, as on a scraped node), and how
 * long idle CPU is counted over.
 */
record FootprintSettings(Duration settle, int scrapes, Duration cpuWindow) {}
