package io.acceld.ledger;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.acceld.inventory.ReplicaId;
import io.acceld.util.AtomicFiles;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
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

  /**
   * Jackson, loaded when a checkpoint is first parsed or rendered, not when the ledger opens: a
   * first start has no file to read, and its first write is on the writer thread, so Jackson's ~550
   * classes stay off the path to Register (measured: 0.1-0.3 s of a plain {@code java -jar} start
   * on 2 cores). The holder class is initialized once, by the JVM, on first use.
   */
  private static final class Json {
    static final ObjectMapper MAPPER = new ObjectMapper();
  }

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
    if (!sha256(body).equals(sha)) {
      throw new UnusableException("is corrupt: its checksum does not match its content");
    }
    return parse(body);
  }

  /** Writes {@code snapshot}'s leases, replacing the file atomically and durably. */
  public void write(Availability snapshot) throws IOException {
    byte[] body = render(snapshot);
    String header =
        MAGIC + " " + FORMAT + " bytes=" + body.length + " sha256=" + sha256(body) + "\n";
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

  private static byte[] render(Availability snapshot) throws IOException {
    ObjectNode root = Json.MAPPER.createObjectNode();
    root.put("version", snapshot.version());
    ArrayNode list = root.putArray("leases");
    for (Lease l : snapshot.leases()) {
      ObjectNode n = list.addObject();
      n.put("device", l.deviceId());
      if (!l.slot().isWhole()) {
        n.put("replica", l.slot().replica());
      }
      ObjectNode h = n.putObject("holder");
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
      }
      n.put("since", l.since().toString());
      n.put("why", l.why());
    }
    return Json.MAPPER.writeValueAsBytes(root);
  }

  private static List<Lease> parse(byte[] body) throws UnusableException {
    JsonNode root;
    try {
      root = Json.MAPPER.readTree(body);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new UnusableException("is not valid JSON: " + e.getOriginalMessage());
    } catch (IOException e) {
      throw new UnusableException("cannot be parsed: " + e.getMessage());
    }
    JsonNode list = root == null ? null : root.get("leases");
    if (list == null || !list.isArray()) {
      throw new UnusableException("has no 'leases' array");
    }
    List<Lease> leases = new ArrayList<>();
    int index = 0;
    for (JsonNode n : list) {
      try {
        leases.add(lease(n));
      } catch (IllegalArgumentException | DateTimeParseException e) {
        throw new UnusableException("lease " + index + " is invalid: " + e.getMessage());
      }
      index++;
    }
    return leases;
  }

  private static Lease lease(JsonNode n) {
    String device = text(n, "device");
    JsonNode replica = n.get("replica");
    ReplicaId slot =
        replica == null ? ReplicaId.whole(device) : ReplicaId.of(device, replica.asInt(-1));
    JsonNode h = n.get("holder");
    if (h == null || !h.isObject()) {
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
        };
    return new Lease(slot, holder, Instant.parse(text(n, "since")), text(n, "why"));
  }

  private static String text(JsonNode n, String key) {
    JsonNode v = n.get(key);
    if (v == null || !v.isTextual()) {
      throw new IllegalArgumentException("'" + key + "' is missing or not a string");
    }
    return v.asText();
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

  private static String sha256(byte[] body) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(body));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }
}
