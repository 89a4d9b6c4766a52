package io.acceld.dra;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** ResourceClaims as a test sets them: a stand-in for the API server. */
final class InMemoryClaims implements ClaimSource {
  private final Map<String, AllocatedClaim> claims = new ConcurrentHashMap<>();

  /** Adds (or replaces) an allocated claim with {@code results}. */
  AllocatedClaim put(String namespace, String name, String uid, AllocatedClaim.Result... results) {
    AllocatedClaim c = new AllocatedClaim(namespace, name, uid, true, List.of(results));
    claims.put(namespace + "/" + name, c);
    return c;
  }

  void put(AllocatedClaim claim) {
    claims.put(claim.namespace() + "/" + claim.name(), claim);
  }

  void remove(String namespace, String name) {
    claims.remove(namespace + "/" + name);
  }

  @Override
  public AllocatedClaim get(String namespace, String name) throws ClaimLookupException {
    AllocatedClaim c = claims.get(namespace + "/" + name);
    if (c == null) {
      throw new ClaimLookupException("resourceclaims \"" + name + "\" not found");
    }
    return c;
  }
}
