package io.acceld.ledger;

import io.acceld.inventory.ReplicaId;
import io.acceld.util.AtomicFiles;
import io.acceld.util.JsonSyntaxException;
import io.acceld.util.JsonTrees;
import io.acceld.util.Sha256;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The ledger's file: {@code leases.checkpoint} in the state directory. One header line, then the
 * leases as JSON:
 *
 * <pre>
 * acceld-ledger 1 bytes=412 sha256=9f2c...
 * {"version":17,"leases":[{"device":"GPU-...","replica":3,"holder":{"kind":"kubelet_pod",...},...}]}
 * </pre>
 *
 * The header carries the format (a newer agent's file is refused rather than half-understood), the
 * body's length (a truncated file is caught even when the JSON happens to parse) and its checksum
 * (any other corruption). Written with {@link AtomicFiles}, owner-only.
 */
public final class LeaseCheckpoint {
  public static final String FILE_NAME = "leases.checkpoint";
  static final int FORMAT = 1;
  private static final String MAGIC = "acceld-ledger";

  /** Larger than any real ledger (a lease is ~200 bytes); a bigger file is not ours. */
  static final long MAX_BYTES = 64L << 20;

  /** The file could not be used; {@link #getMessage} says what was wrong with it. */
  public static final class UnusableException extends Exception {
    UnusableException(String message) {
      super(message);
    }
  }

  private final Path file;

  public LeaseCheckpoint(Path stateDir) {
    this.file = stateDir.resolve(FILE_NAME);
  }

  public Path file() {
    return file;
  }

  /**
   * The leases in the file; empty if there is no file (a first start).
   *
   * @throws UnusableException if the file exists but cannot be trusted, with the reason
   */
  public List<Lease> read() throws UnusableException {
    byte[] bytes;
    try {
      if (Files.size(file) > MAX_BYTES) {
        throw new UnusableException("is larger than " + (MAX_BYTES >> 20) + " MiB");
      }
      bytes = Files.readAllBytes(file);
    } catch (NoSuchFileException e) {
      return List.of();
    } catch (IOException e) {
      throw new UnusableException("cannot be read: " + e);
    }
    if (bytes.length == 0) {
      throw new UnusableException("is empty");
    }
    int newline = indexOf(bytes, (byte) '\n');
    if (newline < 0) {
      throw new UnusableException("has no header line (truncated or not an acceld checkpoint)");
    }
    String[] header = new String(bytes, 0, newline, StandardCharsets.US_ASCII).split(" ");
    if (header.length != 4 || !header[0].equals(MAGIC)) {
      throw new UnusableException("does not start with an '" + MAGIC + "' header");
    }
    int format;
    long length;
    String sha;
    try {
      format = Integer.parseInt(header[1]);
      length = Long.parseLong(field(header[2], "bytes="));
      sha = field(header[3], "sha256=");
    } catch (IllegalArgumentException e) {
      throw new UnusableException("has a malformed header: " + e.getMessage());
    }
    if (format > FORMAT) {
      throw new UnusableException(
          "was written by a newer acceld (format " + format + "; this one reads " + FORMAT + ")");
    }
    if (format < 1) {
      throw new UnusableException("has an invalid format number " + format);
    }
    int bodyStart = newline + 1;
    int bodyLength = bytes.length - bodyStart;
    if (bodyLength != length) {
      throw new UnusableException(
          "is truncated or padded: the header says "
              + length
              + " bytes follow, "
              + bodyLength
              + " do");
    }
    byte[] body = new byte[bodyLength];
    System.arraycopy(bytes, bodyStart, body, 0, bodyLength);
    if (!Sha256.hex(body).equals(sha)) {
      throw new UnusableException("is corrupt: its checksum does not match its content");
    }
    return parse(body);
  }

  /** Writes {@code snapshot}'s leases, replacing the file atomically and durably. */
  public void write(Availability snapshot) throws IOException {
    byte[] body = render(snapshot);
    String header =
        MAGIC + " " + FORMAT + " bytes=" + body.length + " sha256=" + Sha256.hex(body) + "\n";
    byte[] head = header.getBytes(StandardCharsets.US_ASCII);
    byte[] content = new byte[head.length + body.length];
    System.arraycopy(head, 0, content, 0, head.length);
    System.arraycopy(body, 0, content, head.length, body.length);
    AtomicFiles.write(file, content, AtomicFiles.OWNER_ONLY);
  }

  /**
   * Moves an unusable file aside as {@code leases.checkpoint.unusable-<time>}, keeping it for
   * whoever investigates.
   *
   * @return where it went, if it could be moved
   */
  public Optional<Path> moveAside(Instant now) {
    Path aside = file.resolveSibling(FILE_NAME + ".unusable-" + now.toString().replace(':', '-'));
    try {
      Files.move(file, aside, StandardCopyOption.ATOMIC_MOVE);
      return Optional.of(aside);
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  /**
   * The body, on Jackson's streaming layer ({@link JsonTrees}): databind's object mapper was ~300
   * classes resident for good on every node, for this one small document.
   */
  private static byte[] render(Availability snapshot) {
    List<Object> list = new ArrayList<>();
    for (Lease l : snapshot.leases()) {
      Map<String, Object> n = new LinkedHashMap<>();
      n.put("device", l.deviceId());
      if (!l.slot().isWhole()) {
        n.put("replica", l.slot().replica());
      }
      Map<String, Object> h = new LinkedHashMap<>();
      h.put("kind", l.holder().kind().label());
      switch (l.holder().kind()) {
        case KUBELET_POD -> {
          Holder.KubeletPod p = (Holder.KubeletPod) l.holder();
          h.put("namespace", p.namespace());
          h.put("pod", p.pod());
          h.put("container", p.container());
        }
        case KUBELET_PENDING ->
            h.put("allocation", ((Holder.KubeletPending) l.holder()).allocation());
        case MESOS_TASK -> {
          Holder.MesosTask t = (Holder.MesosTask) l.holder();
          h.put("framework", t.frameworkId());
          h.put("task", t.taskId());
        }
        case DRA_CLAIM -> {
          Holder.DraClaim c = (Holder.DraClaim) l.holder();
          h.put("namespace", c.namespace());
          h.put("claim", c.claimName());
          h.put("uid", c.uid());
        }
      }
      n.put("holder", h);
      n.put("since", l.since().toString());
      n.put("why", l.why());
      l.partOf().ifPresent(parent -> n.put("partOf", parent));
      list.add(n);
    }
    Map<String, Object> root = new LinkedHashMap<>();
    root.put("version", snapshot.version());
    root.put("leases", list);
    return JsonTrees.render(root, false);
  }

  private static List<Lease> parse(byte[] body) throws UnusableException {
    Object root;
    try {
      root = JsonTrees.parse(body);
    } catch (JsonSyntaxException e) {
      throw new UnusableException("is not valid JSON: " + e.getMessage());
    }
    Object list = root instanceof Map<?, ?> m ? m.get("leases") : null;
    if (!(list instanceof List<?> entries)) {
      throw new UnusableException("has no 'leases' array");
    }
    List<Lease> leases = new ArrayList<>();
    int index = 0;
    for (Object n : entries) {
      try {
        leases.add(lease(n));
      } catch (IllegalArgumentException | DateTimeParseException e) {
        throw new UnusableException("lease " + index + " is invalid: " + e.getMessage());
      }
      index++;
    }
    return leases;
  }

  private static Lease lease(Object entry) {
    if (!(entry instanceof Map<?, ?> n)) {
      throw new IllegalArgumentException("not an object");
    }
    String device = text(n, "device");
    Object replica = n.get("replica");
    ReplicaId slot =
        replica == null ? ReplicaId.whole(device) : ReplicaId.of(device, replicaNumber(replica));
    if (!(n.get("holder") instanceof Map<?, ?> h)) {
      throw new IllegalArgumentException("no holder");
    }
    String kindName = text(h, "kind");
    HolderKind kind = HolderKind.ofLabel(kindName);
    if (kind == null) {
      throw new IllegalArgumentException("unknown holder kind '" + kindName + "'");
    }
    Holder holder =
        switch (kind) {
          case KUBELET_POD ->
              new Holder.KubeletPod(text(h, "namespace"), text(h, "pod"), text(h, "container"));
          case KUBELET_PENDING -> new Holder.KubeletPending(text(h, "allocation"));
          case MESOS_TASK -> new Holder.MesosTask(text(h, "framework"), text(h, "task"));
          case DRA_CLAIM ->
              new Holder.DraClaim(text(h, "namespace"), text(h, "claim"), text(h, "uid"));
        };
    Optional<String> partOf =
        n.get("partOf") instanceof String parent && !parent.isBlank()
            ? Optional.of(parent)
            : Optional.empty();
    return new Lease(slot, holder, Instant.parse(text(n, "since")), text(n, "why"), partOf);
  }

  /** A replica number as written: an integer in int's range, else -1, which ReplicaId refuses. */
  private static int replicaNumber(Object replica) {
    return replica instanceof Long l && l == l.intValue() ? l.intValue() : -1;
  }

  private static String text(Map<?, ?> n, String key) {
    if (!(n.get(key) instanceof String v)) {
      throw new IllegalArgumentException("'" + key + "' is missing or not a string");
    }
    return v;
  }

  private static String field(String token, String prefix) {
    if (!token.startsWith(prefix)) {
      throw new IllegalArgumentException("expected " + prefix + "..., found " + token);
    }
    return token.substring(prefix.length());
  }

  private static int indexOf(byte[] bytes, byte b) {
    for (int i = 0; i < bytes.length; i++) {
      if (bytes[i] == b) {
        return i;
      }
    }
    return -1;
  }
}
