package io.acceld.config;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The MIG devices of a simulated node ({@code --simulate-mig}): {@code GPU=PROFILE[*N],...} per
 * GPU, GPUs separated by {@code ;}, e.g. {@code 0=1g.10gb*7;1=3g.40gb,2g.20gb*2}. A GPU named with
 * nothing after {@code =} is MIG-enabled without MIG devices. Profiles are those of the simulated
 * H100 80GB; a {@code <C>c.} prefix takes C of the GPU instance's compute slices.
 *
 * @param profiles each listed GPU's MIG devices, by GPU index
 */
public record MigLayout(SortedMap<Integer, List<String>> profiles) {
  public static final MigLayout NONE = new MigLayout(new TreeMap<>());

  /** The simulated GPU's GPU-instance profiles and their slices. */
  private static final Map<String, Integer> SLICES =
      Map.of(
          "1g.10gb", 1,
          "1g.10gb+me", 1,
          "1g.20gb", 1,
          "2g.20gb", 2,
          "3g.40gb", 3,
          "4g.40gb", 4,
          "7g.80gb", 7);

  private static final int SLICES_PER_GPU = 7;
  private static final Pattern DEVICE = Pattern.compile("(?:(\\d)c\\.)?([^*]+)(?:\\*(\\d{1,2}))?");

  public MigLayout {
    TreeMap<Integer, List<String>> copy = new TreeMap<>();
    profiles.forEach((gpu, list) -> copy.put(gpu, List.copyOf(list)));
    profiles = Collections.unmodifiableSortedMap(copy);
  }

  public boolean isEmpty() {
    return profiles.isEmpty();
  }

  /** {@code --simulate-mig}'s parser; a message naming what is wrong. */
  static ValueParser<MigLayout> parser() {
    return MigLayout::parse;
  }

  public static MigLayout parse(String raw) {
    TreeMap<Integer, List<String>> layout = new TreeMap<>();
    if (raw.isBlank()) {
      return NONE;
    }
    for (String part : raw.split(";", -1)) {
      int eq = part.indexOf('=');
      if (eq <= 0) {
        throw new IllegalArgumentException(
            "'" + part + "' is not GPU=PROFILE[*N],... (e.g. 0=1g.10gb*7;1=3g.40gb,2g.20gb*2)");
      }
      int gpu;
      try {
        gpu = Integer.parseInt(part.substring(0, eq).strip());
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("'" + part.substring(0, eq) + "' is not a GPU index");
      }
      if (gpu < 0 || gpu > 255 || layout.containsKey(gpu)) {
        throw new IllegalArgumentException("GPU " + gpu + " is out of range or listed twice");
      }
      List<String> devices = new ArrayList<>();
      int slices = 0;
      String list = part.substring(eq + 1).strip();
      for (String device : list.isEmpty() ? new String[0] : list.split(",")) {
        Matcher m = DEVICE.matcher(device.strip());
        Integer gi = m.matches() ? SLICES.get(m.group(2)) : null;
        if (gi == null) {
          throw new IllegalArgumentException(
              "GPU "
                  + gpu
                  + ": unknown MIG profile '"
                  + device.strip()
                  + "' (one of "
                  + String.join(", ", new TreeSet<>(SLICES.keySet()))
                  + ")");
        }
        if (m.group(1) != null && Integer.parseInt(m.group(1)) > gi) {
          throw new IllegalArgumentException(
              "GPU " + gpu + ": '" + device.strip() + "' uses more compute slices than it has");
        }
        int count = m.group(3) == null ? 1 : Integer.parseInt(m.group(3));
        String profile = (m.group(1) == null ? "" : m.group(1) + "c.") + m.group(2);
        for (int i = 0; i < count; i++) {
          devices.add(profile);
        }
        slices += gi * count;
      }
      if (slices > SLICES_PER_GPU || devices.size() > SLICES_PER_GPU) {
        throw new IllegalArgumentException(
            "GPU " + gpu + ": " + devices + " need more than the GPU's 7 slices");
      }
      layout.put(gpu, devices);
    }
    return new MigLayout(layout);
  }

  @Override
  public String toString() {
    List<String> parts = new ArrayList<>();
    profiles.forEach((gpu, list) -> parts.add(gpu + "=" + String.join(",", list)));
    return String.join(";", parts);
  }
}
