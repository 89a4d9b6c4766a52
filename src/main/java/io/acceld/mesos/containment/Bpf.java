package io.acceld.mesos.containment;

import com.sun.jna.LastErrorException;
import com.sun.jna.Memory;
import java.io.IOException;
import java.lang.ref.Reference;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

/**
 * Loads a device program and attaches it to a cgroup v2 directory with {@code bpf(2)}, as runc and
 * systemd do, without a compiler or bpftool. The {@code union bpf_attr} layouts below follow the
 * kernel's documented UAPI: {@code BPF_PROG_LOAD} takes prog_type, insn_cnt, then the 64-bit
 * pointers insns and license, log_level, log_size, the pointer log_buf, kern_version, prog_flags
 * and a 16-byte prog_name; {@code BPF_PROG_ATTACH} takes target_fd, attach_bpf_fd, attach_type and
 * attach_flags, four {@code __u32}s.
 */
final class Bpf {
  private static final int BPF_PROG_LOAD = 5;
  private static final int BPF_PROG_ATTACH = 8;
  private static final int BPF_PROG_TYPE_CGROUP_DEVICE = 15;
  private static final int BPF_CGROUP_DEVICE = 6;

  /**
   * Our program runs alongside those attached above and below (systemd's, a runtime's): every one
   * must allow an access, so nobody can override the fence, and it cannot override theirs.
   */
  private static final int BPF_F_ALLOW_MULTI = 2;

  private static final int LOAD_ATTR_SIZE = 72; // up to and including expected_attach_type
  private static final int ATTACH_ATTR_SIZE = 16;
  private static final int LOG_SIZE = 64 * 1024;

  /**
   * The kernel only asks whether the license is GPL-compatible, to allow GPL-only helpers; device
   * programs call no helper, so any license loads.
   */
  private static final String LICENSE = "Apache-2.0";

  private final Libc libc;
  private final long bpfSyscall;

  Bpf(Libc libc) {
    this.libc = libc;
    this.bpfSyscall = bpfSyscallNumber();
  }

  /** The {@code bpf} syscall's number on this architecture, or -1 where it is not known here. */
  static long bpfSyscallNumber() {
    return switch (System.getProperty("os.arch")) {
      case "amd64", "x86_64" -> 321;
      case "aarch64", "arm64" -> 280;
      default -> -1;
    };
  }

  /** Fences {@code cgroupDir}: opening any of {@code denied} in it (or below it) gives EPERM. */
  void attachDeviceFence(Path cgroupDir, List<DeviceNode> denied) throws IOException {
    int prog = load(DeviceProgram.denying(denied), 0);
    try {
      int dir;
      try {
        dir = libc.open(cgroupDir.toString(), Libc.O_RDONLY | Libc.O_DIRECTORY | Libc.O_CLOEXEC);
      } catch (LastErrorException e) {
        throw new IOException("cannot open cgroup " + cgroupDir + ": errno " + e.getErrorCode(), e);
      }
      try {
        Memory attr = new Memory(ATTACH_ATTR_SIZE);
        attr.clear();
        attr.setInt(0, dir);
        attr.setInt(4, prog);
        attr.setInt(8, BPF_CGROUP_DEVICE);
        attr.setInt(12, BPF_F_ALLOW_MULTI);
        bpf(BPF_PROG_ATTACH, attr, ATTACH_ATTR_SIZE);
      } catch (LastErrorException e) {
        throw new IOException(
            "cannot attach the device program to " + cgroupDir + ": errno " + e.getErrorCode(), e);
      } finally {
        closeQuietly(dir);
      }
    } finally {
      // the attachment holds its own reference: the program lives as long as the cgroup
      closeQuietly(prog);
    }
  }

  /** Whether this process may load a device program: the preflight's probe. */
  void probe() throws IOException {
    closeQuietly(load(DeviceProgram.denying(List.of()), 0));
  }

  private int load(byte[] code, int logLevel) throws IOException {
    if (bpfSyscall < 0) {
      throw new IOException("bpf(2) is not known on " + System.getProperty("os.arch"));
    }
    Memory insns = new Memory(code.length);
    insns.write(0, code, 0, code.length);
    byte[] licenseBytes = (LICENSE + "\0").getBytes(StandardCharsets.US_ASCII);
    Memory license = new Memory(licenseBytes.length);
    license.write(0, licenseBytes, 0, licenseBytes.length);
    Memory log = logLevel > 0 ? new Memory(LOG_SIZE) : null;
    if (log != null) {
      log.clear();
    }
    Memory attr = new Memory(LOAD_ATTR_SIZE);
    attr.clear();
    attr.setInt(0, BPF_PROG_TYPE_CGROUP_DEVICE);
    attr.setInt(4, code.length / 8);
    attr.setPointer(8, insns);
    attr.setPointer(16, license);
    attr.setInt(24, logLevel);
    attr.setInt(28, log == null ? 0 : LOG_SIZE);
    attr.setPointer(32, log);
    byte[] name = "acceld_devices".getBytes(StandardCharsets.US_ASCII);
    attr.write(48, name, 0, name.length);
    try {
      return (int) bpf(BPF_PROG_LOAD, attr, LOAD_ATTR_SIZE);
    } catch (LastErrorException e) {
      if (logLevel == 0) {
        // load again, asking the verifier why, only for the message
        return load(code, 1);
      }
      String why = log == null ? "" : log.getString(0, StandardCharsets.US_ASCII.name()).strip();
      if (why.length() > 500) {
        why = "..." + why.substring(why.length() - 500); // the verifier's verdict comes last
      }
      throw new IOException(
          "the kernel refused the device program: errno "
              + e.getErrorCode()
              + (why.isEmpty() ? "" : " (verifier: " + why + ")"),
          e);
    } finally {
      // the attribute holds only their addresses: keep the buffers alive until the call returned
      Reference.reachabilityFence(insns);
      Reference.reachabilityFence(license);
      Reference.reachabilityFence(log);
    }
  }

  private long bpf(int cmd, Memory attr, int size) {
    return libc.syscall(bpfSyscall, cmd, attr, size);
  }

  private void closeQuietly(int fd) {
    try {
      libc.close(fd);
    } catch (LastErrorException e) {
      // closing a descriptor we opened cannot lose anything we need
    }
  }
}
