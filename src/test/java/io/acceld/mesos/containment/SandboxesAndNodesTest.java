package io.acceld.mesos.containment;

import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.simulate.FakeNodeTree;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SandboxesAndNodesTest {
  @TempDir Path temp;

  @Test
  void theSandboxGoesToTheUserAndALinkOutOfItDoesNotCarryThatAlong() throws Exception {
    Path sandbox = Files.createDirectories(temp.resolve("sandbox/sub"));
    Files.writeString(sandbox.resolve("stdout"), "");
    Path outside = Files.writeString(temp.resolve("secret"), "");
    Files.createSymbolicLink(sandbox.resolve("link"), outside);
    UserIdentity nobody = new UserIdentity("nobody", 65534, 65534, List.of(65534));

    Sandboxes.chownTo(temp.resolve("sandbox"), nobody);

    for (Path p :
        List.of(
            temp.resolve("sandbox"), sandbox, sandbox.resolve("stdout"), sandbox.resolve("link"))) {
      assertThat(Files.getAttribute(p, "unix:uid", LinkOption.NOFOLLOW_LINKS))
          .as(p.toString())
          .isEqualTo(65534);
      assertThat(Files.getAttribute(p, "unix:gid", LinkOption.NOFOLLOW_LINKS)).isEqualTo(65534);
    }
    assertThat(Files.getAttribute(outside, "unix:uid")).isEqualTo(0);
  }

  @Test
  void onlyAcceleratorCharDevicesAreListedNeverFilesOrLinksOrOrdinaryNodes() throws Exception {
    FakeNodeTree tree = new FakeNodeTree(temp);
    tree.charDevice("nvidia0", 195, 0)
        .charDevice("nvidiactl", 195, 255)
        .charDevice("nvidia-modeset", 195, 254)
        .charDevice("null", 1, 3)
        .charDevice("dri/card1", 226, 1)
        .charDevice("accel/accel0", 261, 0);
    Files.writeString(tree.devRoot().resolve("nvidia9"), ""); // not a device node
    Files.createSymbolicLink(tree.devRoot().resolve("nvidia7"), tree.devRoot().resolve("nvidia0"));

    Map<String, DeviceNode> nodes = AcceleratorNodes.scan(tree.devRoot());

    assertThat(nodes).containsOnlyKeys("nvidia0", "nvidiactl", "dri/card1", "accel/accel0");
    List<DeviceNode> allowed =
        AcceleratorNodes.withCompanions(
            nodes, List.of(DeviceNode.of(tree.devRoot().resolve("nvidia7"))));
    assertThat(AcceleratorNodes.denied(nodes, allowed))
        .extracting(DeviceNode::number)
        .containsExactly("226:1", "261:0");
  }
}
