package io.acceld.kubelet;

import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.inventory.Device;
import io.acceld.inventory.Health;
import io.acceld.testing.TestDevices;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CdiSpecSyncTest {
  static final String NVIDIA = "nvidia.com/gpu";

  @TempDir Path cdiDir;

  /** Inode and modification time: an atomic rewrite (rename) changes the inode. */
  record FileIdentity(Object inode, long modifiedNanos) {
    static FileIdentity of(Path file) throws Exception {
      BasicFileAttributes a =
          Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
      return new FileIdentity(a.fileKey(), a.lastModifiedTime().to(TimeUnit.NANOSECONDS));
    }
  }

  @Test
  void aHealthFlipDoesNotRewriteTheSpecButAHotPlugDoes() throws Exception {
    CdiSpecSync sync = new CdiSpecSync(new CdiSpecWriter(cdiDir, Path.of("/dev")));
    Device first = TestDevices.nvidia(0, 0);
    Device second = TestDevices.nvidia(1, 1);
    assertThat(sync.sync(NVIDIA, List.of(first, second))).isTrue();
    Path spec = new CdiSpecWriter(cdiDir, Path.of("/dev")).specFile(NVIDIA);
    FileIdentity written = FileIdentity.of(spec);
    byte[] content = Files.readAllBytes(spec);

    Device sick = second.withHealth(Health.UNHEALTHY, Optional.of("XID 79"));
    assertThat(sync.sync(NVIDIA, List.of(first, sick))).isFalse();
    assertThat(sync.sync(NVIDIA, List.of(first, second))).isFalse();

    assertThat(sync.writes()).isEqualTo(1);
    assertThat(FileIdentity.of(spec)).isEqualTo(written);
    assertThat(Files.readAllBytes(spec)).isEqualTo(content);

    assertThat(sync.sync(NVIDIA, List.of(first))).isTrue();
    assertThat(sync.writes()).isEqualTo(2);
    assertThat(FileIdentity.of(spec).inode()).isNotEqualTo(written.inode());
  }

  @Test
  void aResourceLeftWithNoDeviceHasNoSpecAndGetsOneBackWithItsDevices() throws Exception {
    CdiSpecSync sync = new CdiSpecSync(new CdiSpecWriter(cdiDir, Path.of("/dev")));
    Path spec = new CdiSpecWriter(cdiDir, Path.of("/dev")).specFile(NVIDIA);
    sync.sync(NVIDIA, List.of(TestDevices.nvidia(0, 0)));
    assertThat(spec).exists();

    assertThat(sync.sync(NVIDIA, List.of())).isFalse();
    assertThat(spec).doesNotExist();
    assertThat(sync.verify(NVIDIA, List.of())).isFalse();
    assertThat(spec).doesNotExist();

    assertThat(sync.sync(NVIDIA, List.of(TestDevices.nvidia(1, 0)))).isTrue();
    assertThat(spec).exists();
  }

  @Test
  void anUpToDateSpecLeftByAnEarlierAgentIsKeptAndAnUnreadableOneRewritten() throws Exception {
    CdiSpecWriter plain = new CdiSpecWriter(cdiDir, Path.of("/dev"));
    List<Device> gpus = List.of(TestDevices.nvidia(0, 0));
    plain.write(NVIDIA, gpus);
    FileIdentity before = FileIdentity.of(plain.specFile(NVIDIA));

    CdiSpecSync restarted = new CdiSpecSync(plain);
    assertThat(restarted.sync(NVIDIA, gpus)).isFalse();
    assertThat(FileIdentity.of(plain.specFile(NVIDIA))).isEqualTo(before);

    // An older agent wrote its specs 0600, which a runtime running as another user cannot read.
    Files.setPosixFilePermissions(
        plain.specFile(NVIDIA), PosixFilePermissions.fromString("rw-------"));
    assertThat(new CdiSpecSync(plain).sync(NVIDIA, gpus)).isTrue();
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(plain.specFile(NVIDIA))))
        .isEqualTo("rw-r--r--");
  }

  @Test
  void removeDeletesTheSpecAndIsIdempotent() throws Exception {
    CdiSpecSync sync = new CdiSpecSync(new CdiSpecWriter(cdiDir, Path.of("/dev")));
    sync.sync(NVIDIA, List.of(TestDevices.nvidia(0, 0)));
    sync.remove(NVIDIA);
    sync.remove(NVIDIA);
    assertThat(new CdiSpecWriter(cdiDir, Path.of("/dev")).specFile(NVIDIA)).doesNotExist();
  }
}
