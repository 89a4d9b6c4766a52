package io.acceld.testing.kubelet;

import io.acceld.proto.deviceplugin.v1beta1.DevicePluginGrpc;
import io.grpc.MethodDescriptor;
import java.util.Optional;

/** The RPCs the kubelet (and so the double) calls on a plugin; the keys of its call counters. */
public enum PluginRpc {
  GET_DEVICE_PLUGIN_OPTIONS(DevicePluginGrpc.getGetDevicePluginOptionsMethod()),
  LIST_AND_WATCH(DevicePluginGrpc.getListAndWatchMethod()),
  GET_PREFERRED_ALLOCATION(DevicePluginGrpc.getGetPreferredAllocationMethod()),
  ALLOCATE(DevicePluginGrpc.getAllocateMethod()),
  PRE_START_CONTAINER(DevicePluginGrpc.getPreStartContainerMethod()),
  GET_INFO(io.acceld.proto.pluginregistration.RegistrationGrpc.getGetInfoMethod()),
  NOTIFY_REGISTRATION_STATUS(
      io.acceld.proto.pluginregistration.RegistrationGrpc.getNotifyRegistrationStatusMethod());

  private final String fullMethodName;

  PluginRpc(MethodDescriptor<?, ?> method) {
    this.fullMethodName = method.getFullMethodName();
  }

  /** The wire path without the leading slash, e.g. {@code v1beta1.DevicePlugin/Allocate}. */
  public String fullMethodName() {
    return fullMethodName;
  }

  static Optional<PluginRpc> of(String fullMethodName) {
    for (PluginRpc rpc : values()) {
      if (rpc.fullMethodName.equals(fullMethodName)) {
        return Optional.of(rpc);
      }
    }
    return Optional.empty();
  }
}
