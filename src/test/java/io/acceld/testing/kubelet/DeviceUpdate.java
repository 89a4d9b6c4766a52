package io.acceld.testing.kubelet;

import java.time.Instant;
import java.util.List;

/**
 * One ListAndWatch message as received.
 *
 * @param at when it arrived
 * @param registration the {@link Registration#sequence()} of the stream it came on
 * @param devices the devices it listed, health judged by the message alone
 * @param serializedSize the message's size on the wire in bytes (protobuf encoding, without gRPC's
 *     5-byte frame header), so a benchmark can say what a device list costs the kubelet
 */
public record DeviceUpdate(
    Instant at, int registration, List<DeviceState> devices, int serializedSize) {
  public DeviceUpdate {
    devices = List.copyOf(devices);
  }
}
