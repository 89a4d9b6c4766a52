package io.acceld.dra.apiserver;

import com.fasterxml.jackson.databind.JsonNode;
import io.acceld.dra.AllocatedClaim;
import io.acceld.dra.ClaimSource;
import io.acceld.kube.ApiException;
import io.acceld.kube.KubeApi;
import io.acceld.util.ClientText;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Reads ResourceClaims from the API server ({@code resource.k8s.io/v1}) for prepare. Every failure
 * is the claim's own {@link ClaimLookupException}, with a message that says what was wrong: not
 * found, forbidden, not a ResourceClaim, too large.
 */
public final class ApiClaimSource implements ClaimSource {
  private final KubeApi api;

  public ApiClaimSource(KubeApi api) {
    this.api = Objects.requireNonNull(api, "api");
  }

  static String path(String namespace, String name) {
    return "/apis/resource.k8s.io/v1/namespaces/"
        + KubeApi.segment(namespace)
        + "/resourceclaims/"
        + KubeApi.segment(name);
  }

  @Override
  public AllocatedClaim get(String namespace, String name) throws ClaimLookupException {
    String what = "ResourceClaim " + ClientText.escape(namespace) + "/" + ClientText.escape(name);
    JsonNode claim;
    try {
      claim = api.get(path(namespace, name));
    } catch (ApiException e) {
      if (e.kind() == ApiException.Kind.NOT_FOUND) {
        throw new ClaimLookupException(what + " not found", e);
      }
      throw new ClaimLookupException("cannot read " + what + ": " + e.getMessage(), e);
    }
    return parse(namespace, name, claim, what);
  }

  /** The claim in {@code claim}, a ResourceClaim's JSON. */
  static AllocatedClaim parse(String namespace, String name, JsonNode claim, String what)
      throws ClaimLookupException {
    if (!claim.isObject() || !"ResourceClaim".equals(claim.path("kind").asText("ResourceClaim"))) {
      throw new ClaimLookupException(what + ": the API server's answer is not a ResourceClaim");
    }
    String uid = claim.path("metadata").path("uid").asText("");
    if (uid.isEmpty()) {
      throw new ClaimLookupException(what + ": the answer has no metadata.uid");
    }
    JsonNode allocation = claim.path("status").path("allocation");
    if (allocation.isMissingNode() || allocation.isNull()) {
      return new AllocatedClaim(namespace, name, uid, false, List.of());
    }
    if (!allocation.isObject()) {
      throw new ClaimLookupException(what + ": status.allocation is not an object");
    }
    JsonNode results = allocation.path("devices").path("results");
    List<AllocatedClaim.Result> parsed = new ArrayList<>();
    if (!results.isMissingNode() && !results.isNull() && !results.isArray()) {
      throw new ClaimLookupException(what + ": status.allocation.devices.results is not a list");
    }
    int i = 0;
    for (JsonNode r : results) {
      String field = "status.allocation.devices.results[" + i++ + "]";
      parsed.add(
          new AllocatedClaim.Result(
              required(r, "request", field, what),
              required(r, "driver", field, what),
              required(r, "pool", field, what),
              required(r, "device", field, what)));
    }
    return new AllocatedClaim(namespace, name, uid, true, parsed);
  }

  private static String required(JsonNode result, String key, String field, String what)
      throws ClaimLookupException {
    JsonNode value = result.path(key);
    if (!value.isTextual() || value.asText().isEmpty()) {
      throw new ClaimLookupException(
          what + ": " + field + "." + key + " is missing or not a string");
    }
    return value.asText();
  }
}
