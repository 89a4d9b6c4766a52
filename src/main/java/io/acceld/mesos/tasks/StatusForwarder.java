package io.acceld.mesos.tasks;

import com.google.protobuf.ByteString;
import io.acceld.ledger.Holder;
import io.acceld.proto.mesos.v1.ExecutorID;
import io.acceld.proto.mesos.v1.FrameworkID;
import io.acceld.proto.mesos.v1.TaskStatus;

/**
 * Where the {@link TaskBook} sends what goes up to schedulers: the master, which knows each
 * framework's current subscription. Called on the book's own thread, never with the book's lock
 * held, so the master may call back into the book.
 */
public interface StatusForwarder {
  /**
   * Sends {@code status} to the framework as an UPDATE event.
   *
   * @return false when the framework has no open subscription (the book retries later anyway)
   */
  boolean forward(FrameworkID framework, TaskStatus status);

  /** Sends an executor's MESSAGE to its framework, best effort. */
  void message(FrameworkID framework, ExecutorID executor, ByteString data);

  /** A task's lease was released: its devices (and CPUs and memory) may be offered again. */
  void released(Holder.MesosTask task);

  /** Forwards nothing: until the master attaches itself. */
  StatusForwarder NONE =
      new StatusForwarder() {
        @Override
        public boolean forward(FrameworkID framework, TaskStatus status) {
          return false;
        }

        @Override
        public void message(FrameworkID framework, ExecutorID executor, ByteString data) {}

        @Override
        public void released(Holder.MesosTask task) {}
      };
}
