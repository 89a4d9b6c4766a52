package io.acceld.mesos.containment;

import com.sun.jna.LastErrorException;
import com.sun.jna.Memory;
import java.io.IOException;
import java.lang.ref.Reference;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Loads a device program and attaches it to a cgroup v2 directory with {@code bpf(2)}, as runc and
 * systemd do, without a compiler or bpftool. The {@code union bpf_attr} layouts below follow the
 * kernel's documented UAPI: {@code BPF_PROG_LOAD} takes prog_type, insn_cnt, then the 64-bit
 * pointers insns and license, log_level, log_size, the pointer log_buf, kern_version, prog_flags
 * and a 16-byte prog_name; {@code BPF_PROG_ATTACH} and {@code BPF_PROG_DETACH} take target_fd,
 * attach_bpf_fd, attach_type and attach_flags, four {@code __u32}s; {@code BPF_PROG_QUERY} takes
 * target_fd, attach_type, query_flags, attach_flags (out), the 64-bit pointer prog_ids and prog_cnt
 * (in: room, out: count); {@code BPF_PROG_GET_FD_BY_ID} takes prog_id; {@code
 * BPF_OBJ_GET_INFO_BY_FD} takes bpf_fd, info_len and the 64-bit pointer info, where {@code struct
 * bpf_prog_info} has the program's id at offset 4 and its 16-byte name at offset 64.
 */
final class Bpf {
  private static final int BPF_PROG_LOAD = 5;
  private static final int BPF_PROG_ATTACH = 8;
  private static final int BPF_PROG_DETACH = 9;
  private static final int BPF_PROG_GET_FD_BY_ID = 13;
  private static final int BPF_OBJ_GET_INFO_BY_FD = 15;
  private static final int BPF_PROG_QUERY = 16;
  private static final int BPF_PROG_TYPE_CGROUP_DEVICE = 15;
  private static final int BPF_CGROUP_DEVICE = 6;

  /**
   * Our program runs alongside those attached above and below (systemd's, a runtime's): every one
   * must allow an access, so nobody can override the fence, and it cannot override theirs.
   */
  private static final int BPF_F_ALLOW_MULTI = 2;

  private static final int LOAD_ATTR_SIZE = 72; // up to and including expected_attach_type
  private static final int ATTACH_ATTR_SIZE = 16;
  private static final int QUERY_ATTR_SIZE = 32; // up to and including prog_cnt, padded
  private static final int INFO_ATTR_SIZE = 16;
  private static final int PROG_INFO_SIZE = 80; // up to and including name
  private static final int NAME_OFFSET = 64;

  /** The name our programs load with, how a fence re-attached after a restart finds its own. */
  static final String PROGRAM_NAME = "acceld_devices";

  /** A cgroup holds a handful of device programs at most; 64 is the kernel's own cap per type. */
  private static final int QUERY_ROOM = 64;

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

  /**
   * Fences {@code cgroupDir}: opening any of {@code denied} in it (or below it) gives EPERM.
   *
   * @return the attached program's descriptor, which the fence keeps to {@link #replace} it
   */
  int attachDeviceFence(Path cgroupDir, List<DeviceNode> denied) throws IOException {
    int prog = load(DeviceProgram.denying(denied), 0);
    try {
      int dir = openCgroup(cgroupDir);
      try {
        attach(dir, prog, cgroupDir);
      } finally {
        closeQuietly(dir);
      }
      return prog;
    } catch (IOException | RuntimeException e) {
      closeQuietly(prog);
      throw e;
    }
  }

  /**
   * Puts a program denying {@code denied} in the place of the cgroup's current one. Programs
   * attached with {@code BPF_F_ALLOW_MULTI} must all allow an access, so a wider list only takes
   * effect once the old program is gone: the new one is attached first and the old one detached
   * after, so the cgroup is never without a fence (while both are attached, the old, narrower one
   * decides).
   *
   * @param current the descriptor of the program attached now, or -1 when it is not known (a fence
   *     re-attached after an agent restart): then every program named {@link #PROGRAM_NAME}
   *     attached to the cgroup itself is taken for the old one, found with {@code BPF_PROG_QUERY}
   * @return the new program's descriptor; {@code current} is closed once the new one is in place
   * @throws IOException when the new program cannot be loaded or attached (the old one stays in
   *     force), or the old one cannot be detached (then the new one is detached again, so the
   *     cgroup keeps its old fence alone)
   */
  int replace(Path cgroupDir, int current, List<DeviceNode> denied) throws IOException {
    int prog = load(DeviceProgram.denying(denied), 0);
    int dir;
    try {
      dir = openCgroup(cgroupDir);
    } catch (IOException e) {
      closeQuietly(prog);
      throw e;
    }
    try {
      List<Integer> old = current >= 0 ? List.of(current) : ours(dir, cgroupDir);
      try {
        attach(dir, prog, cgroupDir);
      } catch (IOException e) {
        closeQuietly(prog);
        if (current < 0) {
          old.forEach(this::closeQuietly);
        }
        throw e;
      }
      try {
        for (int o : old) {
          detach(dir, o, cgroupDir);
        }
      } catch (IOException e) {
        try {
          detach(dir, prog, cgroupDir);
        } catch (IOException again) {
          e.addSuppressed(again); // both stay attached: the old, narrower fence still decides
        }
        closeQuietly(prog);
        if (current < 0) {
          old.forEach(this::closeQuietly);
        }
        throw e;
      }
      old.forEach(this::closeQuietly);
      return prog;
    } finally {
      closeQuietly(dir);
    }
  }

  /** Descriptors of our device programs attached to {@code dir} itself (not its ancestors). */
  private List<Integer> ours(int dir, Path cgroupDir) throws IOException {
    List<Integer> fds = new ArrayList<>();
    try {
      for (int id : attachedIds(dir, cgroupDir)) {
        int fd = programById(id, cgroupDir);
        if (PROGRAM_NAME.equals(name(fd))) {
          fds.add(fd);
        } else {
          closeQuietly(fd); // someone else's program (a root task's): not ours to detach
        }
      }
    } catch (IOException | RuntimeException e) {
      fds.forEach(this::closeQuietly);
      throw e;
    }
    return fds;
  }

  private List<Integer> attachedIds(int dir, Path cgroupDir) throws IOException {
    Memory ids = new Memory(4L * QUERY_ROOM);
    ids.clear();
    Memory attr = new Memory(QUERY_ATTR_SIZE);
    attr.clear();
    attr.setInt(0, dir);
    attr.setInt(4, BPF_CGROUP_DEVICE);
    attr.setPointer(16, ids);
    attr.setInt(24, QUERY_ROOM);
    try {
      bpf(BPF_PROG_QUERY, attr, QUERY_ATTR_SIZE);
    } catch (LastErrorException e) {
      throw new IOException(
          "cannot list the device programs of " + cgroupDir + ": errno " + e.getErrorCode(), e);
    } finally {
      Reference.reachabilityFence(ids);
    }
    List<Integer> list = new ArrayList<>();
    for (int i = 0; i < attr.getInt(24); i++) {
      list.add(ids.getInt(4L * i));
    }
    return list;
  }

  /** The names of the device programs attached to {@code cgroupDir} itself: for tests. */
  List<String> attachedNames(Path cgroupDir) throws IOException {
    int dir = openCgroup(cgroupDir);
    try {
      List<String> names = new ArrayList<>();
      for (int id : attachedIds(dir, cgroupDir)) {
        int fd = programById(id, cgroupDir);
        try {
          names.add(name(fd));
        } finally {
          closeQuietly(fd);
        }
      }
      return names;
    } finally {
      closeQuietly(dir);
    }
  }

  private int programById(int id, Path cgroupDir) throws IOException {
    Memory attr = new Memory(ATTACH_ATTR_SIZE);
    attr.clear();
    attr.setInt(0, id);
    try {
      return (int) bpf(BPF_PROG_GET_FD_BY_ID, attr, ATTACH_ATTR_SIZE);
    } catch (LastErrorException e) {
      throw new IOException(
          "cannot open device program " + id + " of " + cgroupDir + ": errno " + e.getErrorCode(),
          e);
    }
  }

  private String name(int prog) throws IOException {
    Memory info = new Memory(PROG_INFO_SIZE);
    info.clear();
    Memory attr = new Memory(INFO_ATTR_SIZE);
    attr.clear();
    attr.setInt(0, prog);
    attr.setInt(4, PROG_INFO_SIZE);
    attr.setPointer(8, info);
    try {
      bpf(BPF_OBJ_GET_INFO_BY_FD, attr, INFO_ATTR_SIZE);
    } catch (LastErrorException e) {
      throw new IOException("cannot read a device program's name: errno " + e.getErrorCode(), e);
    } finally {
      Reference.reachabilityFence(info);
    }
    return info.getString(NAME_OFFSET, StandardCharsets.US_ASCII.name());
  }

  private int openCgroup(Path cgroupDir) throws IOException {
    try {
      return libc.open(cgroupDir.toString(), Libc.O_RDONLY | Libc.O_DIRECTORY | Libc.O_CLOEXEC);
    } catch (LastErrorException e) {
      throw new IOException("cannot open cgroup " + cgroupDir + ": errno " + e.getErrorCode(), e);
    }
  }

  private void attach(int dir, int prog, Path cgroupDir) throws IOException {
    try {
      bpf(BPF_PROG_ATTACH, attachAttr(dir, prog, BPF_F_ALLOW_MULTI), ATTACH_ATTR_SIZE);
    } catch (LastErrorException e) {
      throw new IOException(
          "cannot attach the device program to " + cgroupDir + ": errno " + e.getErrorCode(), e);
    }
  }

  private void detach(int dir, int prog, Path cgroupDir) throws IOException {
    try {
      // with ALLOW_MULTI the program to detach is named by its descriptor; flags must be 0
      bpf(BPF_PROG_DETACH, attachAttr(dir, prog, 0), ATTACH_ATTR_SIZE);
    } catch (LastErrorException e) {
      throw new IOException(
          "cannot detach the old device program from " + cgroupDir + ": errno " + e.getErrorCode(),
          e);
    }
  }

  private static Memory attachAttr(int dir, int prog, int flags) {
    Memory attr = new Memory(ATTACH_ATTR_SIZE);
    attr.clear();
    attr.setInt(0, dir);
    attr.setInt(4, prog);
    attr.setInt(8, BPF_CGROUP_DEVICE);
    attr.setInt(12, flags);
    return attr;
  }

  /** Closes a program descriptor a fence kept, once its cgroup is gone or it was replaced. */
  void close(int prog) {
    if (prog >= 0) {
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
    byte[] name = PROGRAM_NAME.getBytes(StandardCharsets.US_ASCII);
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
