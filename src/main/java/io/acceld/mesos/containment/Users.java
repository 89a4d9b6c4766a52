package io.acceld.mesos.containment;

import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.ptr.IntByReference;
import com.sun.jna.ptr.PointerByReference;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Resolves a user name to its uid, gid and groups through libc ({@code getpwnam_r}, {@code
 * getgrouplist}), so NSS sources (LDAP, sssd) count as they do for {@code id}, and no shell or
 * {@code su} is involved.
 */
final class Users {
  /**
   * What POSIX and useradd allow in a portable user name (plus a trailing {@code $} of machine
   * accounts); anything else, a leading dash in particular, is refused before libc sees it.
   */
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}\\$?");

  /**
   * {@code struct passwd} on 64-bit Linux: pw_name and pw_passwd pointers, then the 32-bit uid_t
   * pw_uid and gid_t pw_gid at offsets 16 and 20, then three more pointers: 48 bytes.
   */
  private static final int PASSWD_SIZE = 48;

  private static final int PW_UID_OFFSET = 16;
  private static final int PW_GID_OFFSET = 20;
  private static final long MAX_BUFFER = 1 << 20;

  private final Libc libc;

  Users(Libc libc) {
    this.libc = libc;
  }

  /**
   * @throws IllegalArgumentException naming the user when it is malformed or unknown on this node
   */
  UserIdentity resolve(String name) {
    if (name == null || !NAME.matcher(name).matches()) {
      throw new IllegalArgumentException(
          "task user '" + name + "' is not a valid user name on this node");
    }
    if (Native.POINTER_SIZE != 8) {
      throw new IllegalStateException("user lookup supports 64-bit Linux only");
    }
    Memory passwd = new Memory(PASSWD_SIZE);
    for (long size = 16 * 1024; size <= MAX_BUFFER; size *= 4) {
      Memory buffer = new Memory(size);
      PointerByReference result = new PointerByReference();
      int error = libc.getpwnam_r(name, passwd, buffer, size, result);
      if (error == Libc.ERANGE) {
        continue; // a passwd entry longer than the buffer: try a bigger one
      }
      if (error != 0) {
        throw new IllegalStateException(
            "looking up task user '" + name + "' failed: getpwnam_r error " + error);
      }
      if (result.getValue() == null) {
        throw new IllegalArgumentException(
            "task user '" + name + "' does not exist on this node (getpwnam found no entry)");
      }
      int uid = passwd.getInt(PW_UID_OFFSET);
      int gid = passwd.getInt(PW_GID_OFFSET);
      return new UserIdentity(name, uid, gid, groups(name, gid));
    }
    throw new IllegalStateException("the passwd entry of '" + name + "' is larger than 1 MiB");
  }

  private List<Integer> groups(String name, int gid) {
    int[] groups = new int[32];
    IntByReference count = new IntByReference(groups.length);
    while (libc.getgrouplist(name, gid, groups, count) < 0) {
      if (count.getValue() <= groups.length) {
        throw new IllegalStateException("getgrouplist failed for task user '" + name + "'");
      }
      groups = new int[count.getValue()];
      count.setValue(groups.length);
    }
    List<Integer> list = new ArrayList<>();
    Arrays.stream(groups, 0, count.getValue()).distinct().forEach(list::add);
    return list;
  }
}
