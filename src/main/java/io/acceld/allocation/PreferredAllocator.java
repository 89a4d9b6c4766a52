package io.acceld.allocation;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * Answers the kubelet's {@code GetPreferredAllocation}: which {@code size} of the {@code available}
 * devices, including every {@code mustInclude} device, a container should get.
 *
 * <h2>Rules, in order</h2>
 *
 * <ol>
 *   <li>Input is normalised, never rejected (the kubelet fails the pod's admission on an RPC error,
 *       and a preference is only advice): {@code null} entries are dropped, duplicates collapse,
 *       must-include IDs that are not available are ignored. See {@link Candidates}.
 *   <li>{@code size <= 0}: empty list.
 *   <li>{@code size >= |available|}: all of {@code available}.
 *   <li>{@code |mustInclude| >= size}: the first {@code size} must-include IDs in sorted order.
 *   <li>Otherwise the best set, defined below.
 * </ol>
 *
 * The result is always a sorted, duplicate-free subset of {@code available}.
 *
 * <h2>Best set</h2>
 *
 * A set is scored by {@link SetScore} over its physical devices: NVLinks first, then PCIe
 * closeness, then same-NUMA pairs. Among equal scores the set whose devices have more available
 * replicas wins (only differs with sharing), then the lexicographically smallest sorted ID list. Up
 * to {@link ExactSearch#DEFAULT_BUDGET} candidate sets (every request on a node of up to 16
 * devices) every set is enumerated. Beyond that:
 *
 * <ul>
 *   <li>where the pair weights are hierarchical (they depend only on where two devices meet in the
 *       PCIe/NUMA tree: no NVLink, or one NVSwitch fabric of every GPU), {@link HierarchySearch}
 *       finds the optimum by dynamic programming over that tree, which it verifies first;
 *   <li>otherwise {@link IslandSearch}, a branch and bound over the node's NVLink islands and NUMA
 *       groups, finds the exact optimum on island topologies of 64 devices within a fixed work
 *       budget. A search that runs out of budget answers the better of its best set and greedy +
 *       1-swap ({@link GreedySwapSearch}).
 * </ul>
 *
 * So the cost of a request is bounded: a few milliseconds of CPU at 64 devices at worst, a fraction
 * of one on island and hierarchical topologies (BENCHMARKS.md).
 *
 * <h2>Shared devices (replicas)</h2>
 *
 * When several advertised IDs map to one physical device ({@link Request#physicalOf}), the
 * allocator spreads over physical devices, because two replicas of one GPU share its memory and
 * compute and the container gains nothing from the second:
 *
 * <ul>
 *   <li>While there are enough distinct physical devices, each is used at most once: the search
 *       picks physical devices (with those holding a must-include ID fixed) and each picked device
 *       contributes its lowest available advertised ID.
 *   <li>Among equally connected choices, devices with more available replicas (less loaded) win.
 *   <li>When the size exceeds the distinct devices, every device is used once and the rest go, one
 *       at a time, to the device with the most replicas still unpicked (lowest ID on ties), so no
 *       device is used twice before every device is used once when availability is even.
 *   <li>Must-include IDs are kept as given, even two replicas of one device.
 * </ul>
 *
 * <p>Thread-safe: instances hold only the immutable {@link ScoreModel} and the budgets; each call
 * has its own state.
 */
public final class PreferredAllocator {

  /**
   * One {@code ContainerPreferredAllocationRequest}, plus how advertised IDs map to physical
   * devices. Nulls are tolerated as "nothing": {@code null} lists are empty, {@code null} elements
   * are dropped, a {@code null} mapping is the identity.
   *
   * @param available {@code available_deviceIDs}
   * @param mustInclude {@code must_include_deviceIDs}
   * @param size {@code allocation_size}
   * @param physicalOf advertised ID to physical device ID; the identity without sharing; a {@code
   *     null} answer means the ID is its own device
   */
  public record Request(
      List<String> available,
      List<String> mustInclude,
      int size,
      Function<String, String> physicalOf) {

    public Request {
      available = withoutNulls(available);
      mustInclude = withoutNulls(mustInclude);
      physicalOf = physicalOf == null ? Function.identity() : physicalOf;
    }

    /** A request without sharing: every advertised ID is a physical device. */
    public static Request of(List<String> available, List<String> mustInclude, int size) {
      return new Request(available, mustInclude, size, Function.identity());
    }

    private static List<String> withoutNulls(List<String> ids) {
      if (ids == null) {
        return List.of();
      }
      List<String> kept = new ArrayList<>(ids.size());
      for (String id : ids) {
        if (id != null) {
          kept.add(id);
        }
      }
      return List.copyOf(kept);
    }
  }

  private final ScoreModel model;
  private final long exactBudget;
  private final SubsetSearch exact = new ExactSearch();
  private final SubsetSearch beyondBudget;

  /** Asks the topology for each request's pairs: for callers that do not know the devices. */
  public PreferredAllocator(AllocationTopology topology) {
    this(ScoreModel.of(Objects.requireNonNull(topology, "topology")));
  }

  /**
   * With the pair weights of {@code physicalIds} worked out once, here, instead of per request:
   * what a node's allocator should use, built once per inventory.
   */
  public PreferredAllocator(AllocationTopology topology, Collection<String> physicalIds) {
    this(ScoreModel.of(Objects.requireNonNull(topology, "topology"), physicalIds));
  }

  private PreferredAllocator(ScoreModel model) {
    this(model, ExactSearch.DEFAULT_BUDGET, new HierarchySearch(new IslandSearch()));
  }

  /** With another exact-search budget and search beyond it: lets tests drive either. */
  PreferredAllocator(AllocationTopology topology, long exactBudget, SubsetSearch beyondBudget) {
    this(ScoreModel.of(Objects.requireNonNull(topology, "topology")), exactBudget, beyondBudget);
  }

  private PreferredAllocator(ScoreModel model, long exactBudget, SubsetSearch beyondBudget) {
    this.model = model;
    this.exactBudget = exactBudget;
    this.beyondBudget = beyondBudget;
  }

  /** The preferred devices for the request: sorted, distinct, all from {@code available}. */
  public List<String> choose(Request request) {
    Candidates candidates = Candidates.of(request);
    int size = candidates.size();
    if (size <= 0) {
      return List.of();
    }
    if (size >= candidates.available().size()) {
      return candidates.available();
    }
    if (candidates.mustInclude().size() >= size) {
      return candidates.mustInclude().subList(0, size);
    }
    return chooseSpread(
        candidates, PhysicalUnits.group(candidates.available(), physicalOf(request)));
  }

  private List<String> chooseSpread(Candidates candidates, PhysicalUnits units) {
    int[] fixed = units.unitsOf(candidates.mustInclude());
    int freeUnits = units.count() - fixed.length;
    int slots = candidates.size() - candidates.mustInclude().size();
    TreeSet<String> chosen = new TreeSet<>(candidates.mustInclude());
    if (slots <= freeUnits) {
      // Enough distinct physical devices: pick `slots` new ones; each gives one ID.
      boolean[] isFixed = new boolean[units.count()];
      for (int f : fixed) {
        isFixed[f] = true;
      }
      for (int u : search(units, fixed, fixed.length + slots)) {
        if (!isFixed[u]) {
          chosen.add(units.replicas(u).get(0));
        }
      }
    } else {
      ReplicaReuse.fill(units, chosen, candidates.size());
    }
    return List.copyOf(chosen);
  }

  private int[] search(PhysicalUnits units, int[] fixed, int setSize) {
    ScoreTable table = model.table(units.physicalIds(), units.availableReplicaCounts());
    long combinations =
        ExactSearch.combinationsUpTo(
            units.count() - fixed.length, setSize - fixed.length, exactBudget);
    SubsetSearch search = combinations <= exactBudget ? exact : beyondBudget;
    return search.best(table, fixed, setSize);
  }

  private static Function<String, String> physicalOf(Request request) {
    Function<String, String> mapping = request.physicalOf();
    return id -> {
      String physical = mapping.apply(id);
      return physical == null ? id : physical;
    };
  }
}
