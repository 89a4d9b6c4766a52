package io.acceld.agent;

import io.acceld.inventory.NodeInfo;
import io.acceld.util.NamedThreads;
import java.util.Optional;

/**
 * Links {@link NodeInfo}'s record methods on a thread of their own while the agent starts. The
 * first {@code equals} of a record in a JVM bootstraps {@code ObjectMethods}, which spins ~20
 * method-handle classes that no Java 17 class-data archive can hold, and {@code NodeInfo}'s was
 * that first one: in the first inventory diff, on the main thread, before Register (~15 ms of a
 * 2-core node's start). Here it happens on the second core while NVML loads. Both outcomes are
 * taken, so that the diff's (a node unlike the empty one) finds its forms made too. Nothing waits
 * for it: if the main thread gets there first, it links them itself, as before.
 */
final class RecordMethodsWarmUp {
  private RecordMethodsWarmUp() {}

  /** Starts the warm-up on a daemon thread that ends when it is done. */
  static void start() {
    new NamedThreads("acceld-warm-up-records").newThread(RecordMethodsWarmUp::run).start();
  }

  /** The warm-up itself; true when the record methods answered as they must. */
  static boolean run() {
    NodeInfo same = new NodeInfo(Optional.empty(), Optional.empty());
    NodeInfo other = new NodeInfo(Optional.of("0.0"), Optional.empty());
    return NodeInfo.EMPTY.equals(same)
        && !NodeInfo.EMPTY.equals(other)
        && NodeInfo.EMPTY.hashCode() == same.hashCode();
  }
}
