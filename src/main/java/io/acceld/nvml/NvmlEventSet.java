package io.acceld.nvml;

import com.sun.jna.Pointer;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * An NVML event set ({@code nvmlEventSet_t}) from {@link Nvml#createEventSet()}. {@link #close()}
 * frees it once and never throws; closing after the owning {@link Nvml} is a no-op because shutdown
 * already freed it. Do not close it while another thread waits on it.
 */
public final class NvmlEventSet implements AutoCloseable {
  private final Nvml owner;
  private final Pointer handle;
  private final AtomicBoolean closed = new AtomicBoolean();

  NvmlEventSet(Nvml owner, Pointer handle) {
    this.owner = owner;
    this.handle = handle;
  }

  Pointer handle() {
    return handle;
  }

  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      owner.freeEventSet(this);
    }
  }

  @Override
  public String toString() {
    return "NvmlEventSet@" + Long.toHexString(Pointer.nativeValue(handle));
  }
}
