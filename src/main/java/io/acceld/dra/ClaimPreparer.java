package io.acceld.dra;

import io.acceld.inventory.Device;
import io.acceld.inventory.ReplicaId;
import io.acceld.ledger.Availability;
import io.acceld.ledger.DeviceLedger;
import io.acceld.ledger.Holder;
import io.acceld.ledger.Lease;
import io.acceld.ledger.LeaseResult;
import io.acceld.util.ClientText;
import io.acceld.util.GuardedBy;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Prepares and unprepares claims, the work behind both API versions. Per claim, all or nothing:
 *
 * <ol>
 *   <li>read the claim ({@link ClaimSource}); it must have the UID the kubelet sent and an
 *       allocation;
 *   <li>take this driver's results; each must name this node's pool and a device it has ({@link
 *       DeviceNames}). A claim with no result of this driver is the claim's error: the kubelet asks
 *       each driver only about claims with results of that driver, so such a claim is another
 *       driver's, and answering it with no devices would start a container without the devices it
 *       asked for;
 *   <li>lease each device whole in the ledger for {@link Holder.DraClaim}, and wait until the lease
 *       is in the checkpoint: the kubelet starts the container once we answer, and after a restart
 *       the lease must still be there (the kubelet does not prepare again);
 *   <li>write the claim's CDI spec ({@link ClaimCdiSpecs}).
 * </ol>
 *
 * <p>Prepare is idempotent: a claim prepared again is read, leased (the ledger grants a holder what
 * it holds) and written again, and answers the same. Devices it already holds are not leased again,
 * so a device that turned Unhealthy since does not fail the repeat. Unprepare releases every lease
 * of the claim's UID and removes its spec; an unknown claim succeeds.
 *
 * <p>Calls are serialized (one lock), as the Go helper serializes them by default: two calls for
 * one claim never interleave their lease and their spec.
 */
final class ClaimPreparer {
  private static final Logger log = LoggerFactory.getLogger(ClaimPreparer.class);

  /** How long prepare waits for the checkpoint; well inside the kubelet's 45 s deadline. */
  static final Duration PERSIST_TIMEOUT = Duration.ofSeconds(10);

  /** How much of a lookup failure's text a claim's error carries. */
  static final int MAX_LOOKUP_ERROR = 512;

  private final DraSettings settings;
  private final DeviceLedger ledger;
  private final ClaimSource claims;
  private final ClaimCdiSpecs specs;
  private final Object lock = new Object();

  /** Claims whose spec this process wrote or found on disk since the ledger showed their lease. */
  @GuardedBy("lock")
  private final Set<String> specsInPlace = new LinkedHashSet<>();

  ClaimPreparer(DraSettings settings, DeviceLedger ledger, ClaimSource claims) {
    this.settings = Objects.requireNonNull(settings, "settings");
    this.ledger = Objects.requireNonNull(ledger, "ledger");
    this.claims = Objects.requireNonNull(claims, "claims");
    this.specs = new ClaimCdiSpecs(settings);
  }

  ClaimCdiSpecs specs() {
    return specs;
  }

  /** Prepares one claim; never throws for anything the claim or the API server did. */
  PrepareOutcome prepare(ClaimRef ref) {
    Optional<String> invalid = ClaimRequests.problem(ref);
    if (invalid.isPresent()) {
      return failed(PrepareFailure.INVALID_REQUEST, invalid.get());
    }
    AllocatedClaim claim;
    try {
      claim = claims.get(ref.namespace(), ref.name());
    } catch (ClaimSource.ClaimLookupException e) {
      return failed(
          PrepareFailure.LOOKUP,
          "cannot read ResourceClaim " + ref.describe() + ": " + bounded(e.getMessage()));
    } catch (RuntimeException e) {
      log.warn("Reading ResourceClaim {} failed", ref.describe(), e);
      return failed(
          PrepareFailure.LOOKUP, "cannot read ResourceClaim " + ref.describe() + ": " + e);
    }
    if (!claim.uid().equals(ref.uid())) {
      return failed(
          PrepareFailure.REPLACED,
          "ResourceClaim "
              + ref.describe()
              + " has UID "
              + ClientText.quote(claim.uid())
              + ", not "
              + ref.uid()
              + ": it was replaced");
    }
    if (!claim.allocated()) {
      return failed(
          PrepareFailure.NOT_ALLOCATED, "ResourceClaim " + ref.describe() + " is not allocated");
    }
    synchronized (lock) {
      return prepareLocked(ref, claim);
    }
  }

  @GuardedBy("lock")
  private PrepareOutcome prepareLocked(ClaimRef ref, AllocatedClaim claim) {
    Availability now = ledger.current();
    DeviceNames names = DeviceNames.of(now.inventory());
    // Device name -> the requests it serves, in the order of the results.
    Map<String, Set<String>> requests = new LinkedHashMap<>();
    Map<String, Device> devices = new LinkedHashMap<>();
    List<String> wrong = new ArrayList<>();
    for (AllocatedClaim.Result r : claim.results()) {
      if (!r.driver().equals(settings.driver())) {
        continue;
      }
      if (!r.pool().equals(settings.pool())) {
        wrong.add(
            "request "
                + ClientText.quote(r.request())
                + " was allocated device "
                + ClientText.quote(r.device())
                + " of pool "
                + ClientText.quote(r.pool())
                + ", not of this node's pool "
                + settings.pool());
        continue;
      }
      Optional<Device> device = names.device(r.device());
      if (device.isEmpty()) {
        wrong.add(
            "request "
                + ClientText.quote(r.request())
                + " was allocated device "
                + ClientText.quote(r.device())
                + ", which this node does not have");
        continue;
      }
      devices.put(r.device(), device.get());
      requests
          .computeIfAbsent(r.device(), d -> new LinkedHashSet<>())
          .add(baseRequest(r.request()));
    }
    if (!wrong.isEmpty()) {
      return failed(
          PrepareFailure.NOT_ON_THIS_NODE,
          "ResourceClaim " + ref.describe() + ": " + String.join("; ", wrong));
    }
    if (devices.isEmpty()) {
      List<String> drivers =
          claim.results().stream().map(AllocatedClaim.Result::driver).distinct().toList();
      return failed(
          PrepareFailure.NOT_THIS_DRIVER,
          "ResourceClaim "
              + ref.describe()
              + " has no device allocated by driver "
              + settings.driver()
              + (drivers.isEmpty()
                  ? " (its allocation has no results)"
                  : " (its results are of "
                      + drivers.stream()
                          .limit(4)
                          .map(ClientText::quote)
                          .collect(java.util.stream.Collectors.joining(", "))
                      + ")"));
    }
    Holder.DraClaim holder = new Holder.DraClaim(ref.namespace(), ref.name(), ref.uid());
    Set<ReplicaId> held = new LinkedHashSet<>();
    for (Lease l : now.leases()) {
      if (l.holder().equals(holder)) {
        held.add(l.slot());
      }
    }
    List<ReplicaId> wanted = new ArrayList<>();
    for (Device d : devices.values()) {
      ReplicaId slot = ReplicaId.whole(d.id());
      if (!held.contains(slot)) {
        wanted.add(slot);
      }
    }
    long version = now.version();
    if (!wanted.isEmpty()) {
      LeaseResult result =
          ledger.lease(holder, wanted, "NodePrepareResources of ResourceClaim " + ref.describe());
      if (result instanceof LeaseResult.Refused refused) {
        return failed(
            PrepareFailure.CONFLICT,
            "ResourceClaim " + ref.describe() + " cannot have its devices: " + refused.message());
      }
      version = ((LeaseResult.Granted) result).version();
    }
    Optional<String> notPersisted = persist(version);
    if (notPersisted.isPresent()) {
      if (held.isEmpty()) {
        ledger.release(holder); // nothing acknowledged: leave nothing behind
      }
      return failed(
          PrepareFailure.PERSIST, "ResourceClaim " + ref.describe() + ": " + notPersisted.get());
    }
    try {
      specs.write(ref.uid(), devices);
      specsInPlace.add(ref.uid());
    } catch (IOException e) {
      log.error("Cannot write the CDI spec of ResourceClaim {}", ref.describe(), e);
      if (held.isEmpty()) {
        ledger.release(holder);
      }
      return failed(
          PrepareFailure.CDI,
          "ResourceClaim "
              + ref.describe()
              + ": cannot write its CDI spec "
              + specs.file(ref.uid())
              + ": "
              + e.getMessage());
    }
    List<PreparedDevice> answer = new ArrayList<>();
    requests.forEach(
        (name, reqs) ->
            answer.add(
                new PreparedDevice(
                    List.copyOf(reqs),
                    settings.pool(),
                    name,
                    List.of(specs.cdiId(ref.uid(), name)))));
    if (!wanted.isEmpty()) {
      log.info(
          "Prepared ResourceClaim {} (uid {}): {}", ref.describe(), ref.uid(), requests.keySet());
    }
    return new PrepareOutcome.Prepared(answer);
  }

  /**
   * Unprepares one claim: releases every lease its UID holds and removes its spec.
   *
   * @return the error for the kubelet, empty on success (also for a claim never prepared)
   */
  Optional<String> unprepare(ClaimRef ref) {
    Optional<String> invalid = ClaimRequests.problem(ref);
    if (invalid.isPresent()) {
      return invalid;
    }
    synchronized (lock) {
      // By UID: the holder's namespace and name are the claim's, but the UID alone is the key the
      // kubelet's state and ours share.
      Set<Holder> holders = new LinkedHashSet<>();
      for (Lease l : ledger.current().leases()) {
        if (l.holder() instanceof Holder.DraClaim c && c.uid().equals(ref.uid())) {
          holders.add(c);
        }
      }
      List<Lease> released = new ArrayList<>();
      holders.forEach(h -> released.addAll(ledger.release(h)));
      if (!released.isEmpty()) {
        Optional<String> notPersisted = persist(ledger.current().version());
        if (notPersisted.isPresent()) {
          return Optional.of("ResourceClaim " + ref.describe() + ": " + notPersisted.get());
        }
        log.info("Unprepared ResourceClaim {} (uid {})", ref.describe(), ref.uid());
      }
      try {
        specs.remove(ref.uid());
        specsInPlace.remove(ref.uid());
      } catch (IOException e) {
        return Optional.of(
            "ResourceClaim "
                + ref.describe()
                + ": cannot remove its CDI spec "
                + specs.file(ref.uid())
                + ": "
                + e.getMessage());
      }
      return Optional.empty();
    }
  }

  /**
   * Writes the spec of every claim the ledger holds devices for whose spec is not in place: after a
   * restart (the ledger's leases come back from the checkpoint; {@code /var/run/cdi} is usually
   * tmpfs and empty after a reboot), or when a restored claim's devices appear in the inventory.
   * With {@code sweep} (once, at start), also removes specs of this driver whose claim holds
   * nothing: unprepared while the agent was down, or never acknowledged.
   *
   * @return how many specs were written
   */
  int restoreSpecs(boolean sweep) {
    synchronized (lock) {
      Availability now = ledger.current();
      Map<String, List<Lease>> byClaim = new LinkedHashMap<>();
      for (Lease l : now.leases()) {
        if (l.holder() instanceof Holder.DraClaim c) {
          byClaim.computeIfAbsent(c.uid(), u -> new ArrayList<>()).add(l);
        }
      }
      specsInPlace.retainAll(byClaim.keySet());
      DeviceNames names = DeviceNames.of(now.inventory());
      int written = 0;
      for (Map.Entry<String, List<Lease>> claim : byClaim.entrySet()) {
        String uid = claim.getKey();
        if (specsInPlace.contains(uid)) {
          continue;
        }
        Map<String, Device> devices = new LinkedHashMap<>();
        for (Lease l : claim.getValue()) {
          Optional<Device> d = now.inventory().device(l.deviceId());
          Optional<String> name = d.flatMap(x -> names.nameOf(x.id()));
          if (d.isEmpty() || name.isEmpty()) {
            break; // not discovered yet: the next inventory change tries again
          }
          devices.put(name.get(), d.get());
        }
        if (devices.size() != claim.getValue().size()) {
          continue;
        }
        try {
          specs.write(uid, devices);
          specsInPlace.add(uid);
          written++;
          log.info(
              "Wrote the CDI spec of restored {} ({})",
              claim.getValue().get(0).holder().describe(),
              specs.file(uid));
        } catch (IOException e) {
          log.error("Cannot write the CDI spec {}: {}", specs.file(uid), e.toString());
        }
      }
      if (!sweep) {
        return written;
      }
      try {
        for (String uid : specs.claimsOnDisk()) {
          if (!byClaim.containsKey(uid)) {
            specs.remove(uid);
            log.info("Removed the CDI spec of claim {}, which holds no device", uid);
          }
        }
      } catch (IOException e) {
        log.warn("Cannot list {}: {}", settings.cdiDir(), e.toString());
      }
      return written;
    }
  }

  private Optional<String> persist(long version) {
    try {
      if (!ledger.awaitPersisted(version, PERSIST_TIMEOUT)) {
        return Optional.of("the agent could not persist the device lease in time");
      }
      return Optional.empty();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.of("the agent was interrupted while persisting the device lease");
    }
  }

  /** {@code req/sub} names request {@code req} (the Go helper strips the subrequest). */
  static String baseRequest(String request) {
    int slash = request.indexOf('/');
    return slash < 0 ? request : request.substring(0, slash);
  }

  /** The API server's words, which may be long or odd: cut, and without control characters. */
  static String bounded(String text) {
    String t = String.valueOf(text).replaceAll("\\p{Cntrl}", " ");
    return t.length() <= MAX_LOOKUP_ERROR ? t : t.substring(0, MAX_LOOKUP_ERROR - 3) + "...";
  }

  private static PrepareOutcome failed(PrepareFailure reason, String error) {
    return new PrepareOutcome.Failed(reason, error);
  }
}
