package io.acceld.mesos.scheduler;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.acceld.util.AtomicFiles;
import io.acceld.util.GuardedBy;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.UUID;

/**
 * The master's ID, this node's AgentID and the next framework number, kept in {@code master.json}
 * in the bridge's state directory: a restarted agent must be the same agent to the frameworks that
 * re-subscribe, and must never hand a new framework an ID an old one had.
 */
final class MasterIdentity {
  private final Path file;
  private final String masterId;
  private final ObjectMapper json = new ObjectMapper();

  @GuardedBy("this")
  private long nextFramework;

  private MasterIdentity(Path file, String masterId, long nextFramework) {
    this.file = file;
    this.masterId = masterId;
    this.nextFramework = nextFramework;
  }

  static MasterIdentity open(Path dir) throws IOException {
    AtomicFiles.createDirectories(dir, AtomicFiles.DIRECTORY_OWNER_ONLY);
    Path file = dir.resolve("master.json");
    if (Files.exists(file)) {
      JsonNode root = new ObjectMapper().readTree(file.toFile());
      String id = root == null ? "" : root.path("master_id").asText("");
      if (id.isEmpty()) {
        throw new IOException(file + " has no master_id; remove it to start as a new agent");
      }
      return new MasterIdentity(file, id, root.path("next_framework").asLong(0));
    }
    MasterIdentity fresh = new MasterIdentity(file, UUID.randomUUID().toString(), 0);
    fresh.save();
    return fresh;
  }

  String masterId() {
    return masterId;
  }

  /** {@code <masterId>-S0}: Mesos's AgentID format, the same on every start. */
  String agentId() {
    return masterId + "-S0";
  }

  /** A framework ID never given before: {@code <masterId>-0000}, {@code -0001}, ... */
  synchronized String newFrameworkId() throws IOException {
    String id = String.format(Locale.ROOT, "%s-%04d", masterId, nextFramework);
    nextFramework++;
    save();
    return id;
  }

  private synchronized void save() throws IOException {
    ObjectNode root = json.createObjectNode();
    root.put("master_id", masterId);
    root.put("next_framework", nextFramework);
    AtomicFiles.write(file, json.writeValueAsBytes(root), AtomicFiles.OWNER_ONLY);
  }
}
