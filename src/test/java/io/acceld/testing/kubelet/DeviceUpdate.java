package io.acceld.testing.kubelet;

import java.time.Instant;
import java.util.List;

/**
 * One ListAndWatch message as received.
 *
 * @param at when it arrived
 * @param registration the {@link Registration#sequence()} of the stream it came on
 * @param devices the devices it listed, health judged by the message alone
 */
public record DeviceUpdate(Instant at, int registration, List<DeviceState> devices) {
  public DeviceUpdate {
    devices = List.copyOf(devices);
  }
}
