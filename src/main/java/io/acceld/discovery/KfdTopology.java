package io.acceld.discovery;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The AMD kernel fusion driver's topology, {@code <sysfs>/class/kfd/kfd/topology/nodes/<n>}: one
 * node per CPU socket and per GPU, each with a {@code properties} file of {@code name value} lines.
 * A GPU's node is the one whose {@code drm_render_minor} is its render node's minor ({@code
 * renderD128} is 128), which is how AMD's node labeller finds a card's SIMD count, SIMDs per
 * compute unit and VRAM ({@code mem_banks/0/properties}, {@code size_in_bytes}).
 *
 * <p>Absent on hosts without amdgpu's KFD; then every GPU's properties are unknown. A malformed
 * file leaves its values unknown with one DEBUG line, never fails the scan.
 */
final class KfdTopology {
  private static final Logger log = LoggerFactory.getLogger(KfdTopology.class);

  /** What one GPU node says; a value it lacks is empty. */
  record GpuNode(OptionalInt simdCount, OptionalInt simdPerCu, OptionalLong vramBytes) {}

  static final KfdTopology NONE = new KfdTopology(Map.of());

  private final Map<Integer, GpuNode> byRenderMinor;

  private KfdTopology(Map<Integer, GpuNode> byRenderMinor) {
    this.byRenderMinor = Map.copyOf(byRenderMinor);
  }

  static KfdTopology read(Path sysfsRoot) {
    Path nodes = sysfsRoot.resolve("class/kfd/kfd/topology/nodes");
    if (!Files.isDirectory(nodes)) {
      return NONE;
    }
    Map<Integer, GpuNode> found = new HashMap<>();
    try (DirectoryStream<Path> listing = Files.newDirectoryStream(nodes)) {
      for (Path node : listing) {
        Map<String, Long> properties = properties(node.resolve("properties"));
        Long minor = properties.get("drm_render_minor");
        // CPU nodes have no render node: drm_render_minor 0 (or absent).
        if (minor == null || minor <= 0 || minor > Integer.MAX_VALUE) {
          continue;
        }
        Long vram = properties(node.resolve("mem_banks/0/properties")).get("size_in_bytes");
        found.put(
            minor.intValue(),
            new GpuNode(
                positiveInt(properties.get("simd_count")),
                positiveInt(properties.get("simd_per_cu")),
                vram == null || vram <= 0 ? OptionalLong.empty() : OptionalLong.of(vram)));
      }
    } catch (IOException e) {
      log.debug("Cannot list {}: {}", nodes, e.toString());
    }
    return new KfdTopology(found);
  }

  /** The node of the GPU whose render node has minor {@code renderMinor}. */
  Optional<GpuNode> gpu(int renderMinor) {
    return Optional.ofNullable(byRenderMinor.get(renderMinor));
  }

  /** The minor of a render node named like {@code renderD128}; empty for any other name. */
  static OptionalInt renderMinor(String drmNode) {
    if (!drmNode.startsWith("renderD")) {
      return OptionalInt.empty();
    }
    try {
      return OptionalInt.of(Integer.parseInt(drmNode.substring("renderD".length())));
    } catch (NumberFormatException e) {
      return OptionalInt.empty();
    }
  }

  private static OptionalInt positiveInt(Long value) {
    return value == null || value <= 0 || value > Integer.MAX_VALUE
        ? OptionalInt.empty()
        : OptionalInt.of(value.intValue());
  }

  /** The file's {@code name value} lines with a decimal value; others are skipped. */
  private static Map<String, Long> properties(Path file) {
    Map<String, Long> values = new HashMap<>();
    try {
      for (String line : Files.readAllLines(file, StandardCharsets.US_ASCII)) {
        String[] words = line.strip().split("\\s+");
        if (words.length != 2) {
          continue;
        }
        try {
          values.put(words[0], Long.parseLong(words[1]));
        } catch (NumberFormatException e) {
          log.debug("{}: '{}' is not a number", file, line);
        }
      }
    } catch (IOException e) {
      log.debug("Cannot read {}: {}", file, e.toString());
    }
    return values;
  }
}
