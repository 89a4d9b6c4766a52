package io.acceld.simulate;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * What happens to a fixture node while the agent runs: a PCI function is unplugged and plugged back
 * in, a device node disappears. Done on the real file tree, the way the kernel does it, so the
 * agent's watchers and scans see what they would see on a node.
 */
public final class HotPlug {
  private HotPlug() {}

  /** Removes a PCI function as a hot unplug does: its bus entry and its device directory. */
  public static void unplug(FakeNodeTree tree, String address) {
    Path link = tree.sysfsRoot().resolve("bus/pci/devices").resolve(address);
    try {
      Path dir = link.toRealPath();
      Files.delete(link);
      deleteTree(dir);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Re-creates GPU {@code index} of an {@link Fixtures#eightGpuNode} after an unplug. */
  public static void replug(FixtureNode node, int index) {
    Fixtures.writeGpu(node.tree(), node.gpus().get(index));
  }

  /** Removes a device node, such as {@code nvidia3} or {@code dri/renderD129}. */
  public static void removeDevNode(FakeNodeTree tree, String relative) {
    try {
      Files.deleteIfExists(tree.devRoot().resolve(relative));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void deleteTree(Path dir) throws IOException {
    try (Stream<Path> walk = Files.walk(dir)) {
      for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
