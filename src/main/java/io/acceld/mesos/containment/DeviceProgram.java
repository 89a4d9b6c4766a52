package io.acceld.mesos.containment;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;

/**
 * Assembles the {@code BPF_PROG_TYPE_CGROUP_DEVICE} program of a cgroup v2 device fence, as raw
 * eBPF instructions: deny (return 0) every listed character device, allow (return 1) all others.
 *
 * <p>Kernel facts relied on (UAPI, {@code linux/bpf.h}): the program's context is {@code struct
 * bpf_cgroup_dev_ctx}, three {@code __u32}s at offsets 0, 4 and 8: {@code access_type} (device type
 * {@code BPF_DEVCG_DEV_BLOCK}=1 or {@code BPF_DEVCG_DEV_CHAR}=2 in the low 16 bits, the access in
 * the high 16), {@code major} and {@code minor}; returning 0 makes the open, mknod or access fail
 * with EPERM. An instruction is 8 bytes, little-endian on the machines this runs on: opcode, a byte
 * of destination register (low nibble) and source register (high nibble), a 16-bit jump offset
 * counted from the next instruction and a 32-bit immediate.
 */
final class DeviceProgram {
  private static final int BPF_DEVCG_DEV_CHAR = 2;

  // opcode = class | size/op | mode/source
  private static final byte LDX_MEM_W = 0x61; // BPF_LDX | BPF_MEM | BPF_W: dst = *(u32 *)(src+off)
  private static final byte ALU32_AND_K = 0x54; // BPF_ALU | BPF_AND | BPF_K: w(dst) &= imm
  private static final byte JMP_JNE_K = 0x55; // BPF_JMP | BPF_JNE | BPF_K: if dst != imm goto +off
  private static final byte ALU64_MOV_K = (byte) 0xb7; // BPF_ALU64 | BPF_MOV | BPF_K: dst = imm
  private static final byte JMP_EXIT = (byte) 0x95; // BPF_JMP | BPF_EXIT: return r0

  private static final int R0 = 0;
  private static final int R1 = 1; // the context on entry
  private static final int R2 = 2; // device type
  private static final int R3 = 3; // major
  private static final int R4 = 4; // minor

  private static final int INSN = 8;
  private static final int PER_DEVICE = 5;

  private DeviceProgram() {}

  /** The program's instructions, {@code 8 * count} bytes. */
  static byte[] denying(List<DeviceNode> denied) {
    int count = 4 + PER_DEVICE * denied.size() + 2;
    ByteBuffer code = ByteBuffer.allocate(count * INSN).order(ByteOrder.LITTLE_ENDIAN);
    insn(code, LDX_MEM_W, R2, R1, 0, 0);
    insn(code, ALU32_AND_K, R2, 0, 0, 0xffff);
    insn(code, LDX_MEM_W, R3, R1, 4, 0);
    insn(code, LDX_MEM_W, R4, R1, 8, 0);
    for (DeviceNode node : denied) {
      // each test falls through to the next device's block when it does not match
      insn(code, JMP_JNE_K, R2, 0, 4, BPF_DEVCG_DEV_CHAR);
      insn(code, JMP_JNE_K, R3, 0, 3, node.major());
      insn(code, JMP_JNE_K, R4, 0, 2, node.minor());
      insn(code, ALU64_MOV_K, R0, 0, 0, 0);
      insn(code, JMP_EXIT, 0, 0, 0, 0);
    }
    insn(code, ALU64_MOV_K, R0, 0, 0, 1);
    insn(code, JMP_EXIT, 0, 0, 0, 0);
    return code.array();
  }

  private static void insn(ByteBuffer code, byte op, int dst, int src, int off, int imm) {
    code.put(op);
    code.put((byte) ((src << 4) | dst));
    code.putShort((short) off);
    code.putInt(imm);
  }
}
