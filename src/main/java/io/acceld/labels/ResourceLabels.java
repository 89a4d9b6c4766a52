package io.acceld.labels;

import io.acceld.config.SharingPolicy;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The labels GPU Feature Discovery writes under one resource's name {@code R} ({@code
 * nvidia.com/gpu}, {@code nvidia.com/mig-1g.10gb}): {@code R.product}, {@code R.count}, {@code
 * R.replicas} and {@code R.sharing-strategy}, the values depending on the resource's time-slicing.
 *
 * @param resource the resource name the keys start with
 * @param sharing the resource's policy; empty where GFD applies no sharing (MIG-enabled GPUs, which
 *     are not themselves handed out): replicas 0, strategy {@code none}
 */
record ResourceLabels(String resource, Optional<SharingPolicy> sharing) {
  static final String NO_SHARING = "none";
  static final String TIME_SLICING = "time-slicing";

  String key(String suffix) {
    return resource + "." + suffix;
  }

  /**
   * Product (each part sanitised, the empty ones skipped, joined with {@code -}, and {@code
   * -SHARED} when replicated under the same name), count, replicas and sharing strategy. No product
   * when no part is known.
   */
  Map<String, String> base(int count, List<String> productParts) {
    Map<String, String> labels = new LinkedHashMap<>();
    List<String> parts =
        productParts.stream().map(LabelRules::sanitise).filter(p -> !p.isEmpty()).toList();
    if (!parts.isEmpty()) {
      String product = String.join("-", parts);
      if (replicated() && !sharing.orElseThrow().renameShared()) {
        product += "-SHARED";
      }
      labels.put(key("product"), product);
    }
    labels.put(key("count"), Integer.toString(count));
    labels.put(key("replicas"), Integer.toString(sharing.map(SharingPolicy::replicas).orElse(0)));
    labels.put(key("sharing-strategy"), replicated() ? TIME_SLICING : NO_SHARING);
    return labels;
  }

  private boolean replicated() {
    return sharing.map(SharingPolicy::isShared).orElse(false);
  }
}
