package io.acceld.kubelet.podresources;

import java.util.Objects;

/** The container a device is assigned to, as the kubelet's pod-resources API reports it. */
public record PodRef(String pod, String namespace, String container) {
  public PodRef {
    Objects.requireNonNull(pod, "pod");
    Objects.requireNonNull(namespace, "namespace");
    Objects.requireNonNull(container, "container");
  }
}
