package io.acceld.mesos.containment;

import java.util.List;

/**
 * Who a task runs as: the name's uid, primary gid and every group it belongs to ({@code
 * getgrouplist}), resolved on this node.
 */
public record UserIdentity(String name, int uid, int gid, List<Integer> groups) {
  public UserIdentity {
    groups = List.copyOf(groups);
  }

  public boolean isRoot() {
    return uid == 0;
  }
}
