package io.acceld.bench;

import java.time.Duration;

/**
 * How long each run lets the agent settle before RSS is read, how many scrapes of /metrics it makes
 * first (so the exposition's classes and buffers are in the figure, as on a scraped node), how long
 * idle CPU is counted over, and when (after registration) a second idle window starts: zero for
 * none.
 *
 * <p>Why two windows: the first, seconds after start, still pays for warming up (the C1 compiler
 * compiles what the loops have made hot; code that runs once a second is interpreted until it is
 * compiled, minutes in). The later one is the agent as it idles for days.
 */
record FootprintSettings(Duration settle, int scrapes, Duration cpuWindow, Duration steadyAfter) {}
