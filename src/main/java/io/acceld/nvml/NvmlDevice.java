package io.acceld.nvml;

import com.sun.jna.Pointer;
import java.util.Objects;

/**
 * An NVML device handle ({@code nvmlDevice_t}). Opaque outside this package so JNA types do not
 * leak into the rest of the agent; two lookups of the same GPU yield equal instances.
 */
public final class NvmlDevice {
  private final Pointer handle;

  NvmlDevice(Pointer handle) {
    this.handle = Objects.requireNonNull(handle, "handle");
  }

  Pointer handle() {
    return handle;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof NvmlDevice other && handle.equals(other.handle);
  }

  @Override
  public int hashCode() {
    return handle.hashCode();
  }

  @Override
  public String toString() {
    return "NvmlDevice@" + Long.toHexString(Pointer.nativeValue(handle));
  }
}
