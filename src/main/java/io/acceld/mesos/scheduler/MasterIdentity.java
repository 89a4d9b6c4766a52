package io.acceld.mesos.scheduler;

import io.acceld.util.AtomicFiles;
import io.acceld.util.GuardedBy;
import io.acceld.util.JsonSyntaxException;
import io.acceld.util.JsonTrees;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;

/**
 * The master's ID, this node's AgentID and the next framework number, kept in {@code master.json}
 * in the bridge's state directory: a restarted agent must be the same agent to the frameworks that
 * re-subscribe, and must never hand a new framework an ID an old one had.
 */
final class MasterIdentity {
  private final Path file;
  private final String masterId;

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
      Object root;
      try {
        root = JsonTrees.parse(Files.readAllBytes(file));
      } catch (JsonSyntaxException e) {
        throw new IOException(file + " is not JSON (" + e.getMessage() + ")", e);
      }
      Map<?, ?> fields = root instanceof Map<?, ?> m ? m : Map.of();
      if (!(fields.get("master_id") instanceof String id) || id.isEmpty()) {
        throw new IOException(file + " has no master_id; remove it to start as a new agent");
      }
      long next = fields.get("next_framework") instanceof Long n ? n : 0;
      return new MasterIdentity(file, id, next);
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
    Map<String, Object> root = new LinkedHashMap<>();
    root.put("master_id", masterId);
    root.put("next_framework", nextFramework);
    AtomicFiles.write(file, JsonTrees.render(root, false), AtomicFiles.OWNER_ONLY);
  }
}
