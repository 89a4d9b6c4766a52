package io.acceld.mesos.tasks;

import io.acceld.util.AtomicFiles;
import io.acceld.util.GuardedBy;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.CRC32C;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The task book's rows on disk as a snapshot plus an append-only journal, with group commit: a
 * change is one record appended to {@code journal-<generation>.log} and made durable by one
 * fdatasync ({@code force(false)}), and the changes that arrive while a force is in flight share
 * the next one. Replacing one file per task (temporary file, fsync, rename, directory fsync) cost
 * two fsyncs per change, about ten in a row on the path from ACCEPT to TASK_RUNNING (BENCHMARKS.md,
 * issue 25).
 *
 * <p>Leader and follower, no thread of its own: {@link #append} only buffers the record (under the
 * caller's lock, so one task's records keep their order); {@link #await} returns once the record is
 * durable. The first waiter while no force runs becomes the leader: it writes every buffered record
 * and forces the file, without this class's lock, while later records gather for the next force.
 * Durability is a prefix: a record is durable when every record appended before it is.
 *
 * <p>Every record is framed {@code magic, length, CRC32C(length, payload), payload}, and bounded by
 * {@link #MAX_RECORD}. When the journal passes {@code compactBytes}, or after a write failed (the
 * file's tail is then unknown), the next leader compacts instead of appending: it creates the next
 * generation's empty journal, writes {@code snapshot.bin} (the live rows and the generation they
 * continue in) with {@link AtomicFiles}, whose directory fsync also makes the new journal's name
 * durable, and deletes the old journal. A crash between those steps leaves an older journal beside
 * a snapshot that names a newer generation: it is ignored and deleted on the next start.
 *
 * <p>Recovery reads the snapshot, then replays the journals of its generation and newer in order. A
 * record that cannot be read with no readable record after it is a torn tail (a write a crash cut
 * short, never acknowledged) and is dropped with a warning; one with readable records after it is
 * damage: the file is copied to {@code <name>.damaged} for a person, logged at ERROR with the file
 * and offset, and replay resumes at the next readable record. A damaged snapshot is moved aside the
 * same way. Every open then compacts, so the agent always appends to a fresh, clean journal.
 */
final class TaskJournal implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(TaskJournal.class);

  /** "ACJ1": where a record starts; lets recovery find the next record after damage. */
  static final int MAGIC = 0x41434a31;

  static final int HEADER_BYTES = 12;

  /**
   * The largest record payload: a TaskInfo, its executor and framework, base64 in JSON, far above
   * what a scheduler sends and below what would make recovery or compaction a memory problem.
   */
  static final int MAX_RECORD = 8 << 20;

  /** The journal is compacted once it is this long: about 700 typical records. */
  static final long COMPACT_BYTES = 1 << 20;

  /** A journal or snapshot longer than this is not ours (or not sane), and is not read. */
  static final long MAX_FILE = 256L << 20;

  static final String SNAPSHOT = "snapshot.bin";
  private static final Pattern JOURNAL = Pattern.compile("journal-(\\d{1,18})\\.log");

  private static final byte PUT = 1;
  private static final byte DELETE = 2;
  private static final byte META = 3;

  /** Called before each force, for tests that hold a leader in its force; normally nothing. */
  interface ForceHook {
    ForceHook NONE = () -> {};

    void beforeForce() throws IOException;
  }

  private final Path dir;
  private final long compactBytes;
  private final ForceHook hook;
  private final Object lock = new Object();

  /** The rows as every appended record leaves them, durable or not: what a compaction writes. */
  @GuardedBy("lock")
  private final Map<String, byte[]> rows = new LinkedHashMap<>();

  /** Framed records appended and not yet handed to a leader. */
  @GuardedBy("lock")
  private List<byte[]> buffered = new ArrayList<>();

  @GuardedBy("lock")
  private long appended;

  /** Every record up to this one is on disk. */
  @GuardedBy("lock")
  private long durable;

  /** A leader is writing; followers wait. */
  @GuardedBy("lock")
  private boolean forcing;

  /** The last failed batch's last record and why; records up to it that are not durable failed. */
  @GuardedBy("lock")
  private long failedThrough;

  @GuardedBy("lock")
  private IOException failure;

  /** A write failed: the journal's tail is unknown, so the next leader compacts. */
  @GuardedBy("lock")
  private boolean broken;

  @GuardedBy("lock")
  private boolean closed;

  @GuardedBy("lock")
  private IOException startupFailure;

  @GuardedBy("lock")
  private long forces;

  // Touched by the leader only (forcing == true), or in open and close; the lock's hand-over of
  // forcing orders one leader's writes before the next's. Volatile for journalFile() alone.
  private volatile long generation;
  private FileChannel channel;
  private Object channelKey;
  private long position;

  private TaskJournal(Path dir, long compactBytes, ForceHook hook) {
    this.dir = dir;
    this.compactBytes = compactBytes;
    this.hook = hook;
  }

  /**
   * Opens the journal in {@code dir}: recovers the rows, compacts them into a new generation and
   * returns the journal ready to append. {@code legacy} gives the rows of the format before the
   * journal (a file per task); it is asked only when there is no snapshot yet, and its files can be
   * deleted once this returns.
   */
  static TaskJournal open(Path dir, Supplier<Map<String, byte[]>> legacy) throws IOException {
    return open(dir, legacy, COMPACT_BYTES, ForceHook.NONE);
  }

  static TaskJournal open(
      Path dir, Supplier<Map<String, byte[]>> legacy, long compactBytes, ForceHook hook)
      throws IOException {
    TaskJournal j = new TaskJournal(dir, compactBytes, hook);
    j.recover(legacy);
    return j;
  }

  /** The rows recovered and appended since: key to value, in the order they were first put. */
  Map<String, byte[]> rows() {
    synchronized (lock) {
      return new LinkedHashMap<>(rows);
    }
  }

  /**
   * Buffers a record putting {@code value} under {@code key}, or removing {@code key} when {@code
   * value} is null; nothing is written yet. Callers append in the order the changes must replay.
   *
   * @return the record's sequence number, for {@link #await}
   * @throws RecordTooLargeException when the record is larger than {@link #MAX_RECORD}
   */
  long append(String key, byte[] value) throws IOException {
    byte[] frame = frame(value == null ? DELETE : PUT, key, value);
    synchronized (lock) {
      if (closed) {
        throw new IOException("the task journal in " + dir + " is closed");
      }
      buffered.add(frame);
      if (value == null) {
        rows.remove(key);
      } else {
        rows.put(key, value);
      }
      return ++appended;
    }
  }

  /**
   * Returns once record {@code seq} (and every one before it) is on disk, writing it if no other
   * caller is.
   *
   * @throws IOException when the write of the batch that held it failed; it may still become
   *     durable with a later batch, as a file rename not yet synced may survive a crash
   */
  void await(long seq) throws IOException {
    while (true) {
      List<byte[]> batch;
      long through;
      boolean compact;
      Map<String, byte[]> snapshot = null;
      synchronized (lock) {
        while (true) {
          if (durable >= seq) {
            return;
          }
          if (failedThrough >= seq) {
            throw new IOException(failure.getMessage(), failure);
          }
          if (closed) {
            throw new IOException("the task journal in " + dir + " is closed");
          }
          if (!forcing) {
            break;
          }
          try {
            lock.wait();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while waiting for the task journal", e);
          }
        }
        forcing = true;
        batch = buffered;
        buffered = new ArrayList<>();
        through = appended;
        compact = broken || position >= compactBytes;
        if (compact) {
          snapshot = new LinkedHashMap<>(rows);
        }
      }
      IOException failed = new IOException("the task journal's writer stopped unexpectedly");
      try {
        if (compact) {
          compact(snapshot);
        } else {
          write(batch);
        }
        failed = null;
      } catch (IOException | RuntimeException e) {
        failed = e instanceof IOException io ? io : new IOException(e.toString(), e);
      } finally {
        // Whatever happened (an Error too), the next waiter must be able to lead.
        synchronized (lock) {
          forcing = false;
          forces++;
          if (failed == null) {
            durable = through;
            broken = false;
          } else {
            failedThrough = through;
            failure = failed;
            broken = true;
          }
          lock.notifyAll();
        }
      }
    }
  }

  /** Whether record {@code seq} is on disk. */
  boolean durable(long seq) {
    synchronized (lock) {
      return durable >= seq;
    }
  }

  /** Forces done (appends and compactions, failed or not): what group commit saves shows here. */
  long forces() {
    synchronized (lock) {
      return forces;
    }
  }

  /** Records appended since open. */
  long appended() {
    synchronized (lock) {
      return appended;
    }
  }

  /** The journal file appended to now. */
  Path journalFile() {
    synchronized (lock) {
      return journal(generation);
    }
  }

  @Override
  public void close() {
    synchronized (lock) {
      closed = true;
      while (forcing) {
        try {
          lock.wait();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          break;
        }
      }
      lock.notifyAll();
    }
    try {
      if (channel != null) {
        channel.close();
      }
    } catch (IOException e) {
      log.debug("Closing the task journal: {}", e.toString());
    }
  }

  // ---- the leader's work ----

  private void write(List<byte[]> batch) throws IOException {
    int size = 0;
    for (byte[] f : batch) {
      size += f.length;
    }
    ByteBuffer all = ByteBuffer.allocate(size);
    batch.forEach(all::put);
    all.flip();
    while (all.hasRemaining()) {
      position += channel.write(all, position);
    }
    // Writes to a journal someone moved or deleted would be durable nowhere the next start looks.
    Object now;
    try {
      now =
          Files.readAttributes(
                  journal(generation), BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS)
              .fileKey();
    } catch (IOException e) {
      throw new IOException(
          "the task journal " + journal(generation) + " is gone from the state directory", e);
    }
    if (!Objects.equals(now, channelKey)) {
      throw new IOException(
          "the task journal " + journal(generation) + " was replaced behind the agent's back");
    }
    hook.beforeForce();
    channel.force(false);
  }

  /**
   * The next generation: its empty journal, then the snapshot naming it (whose directory fsync
   * makes both names durable), then the old journal deleted.
   */
  private void compact(Map<String, byte[]> live) throws IOException {
    long next = generation + 1;
    Path file = journal(next);
    Files.deleteIfExists(file); // a leftover of a compaction that failed before its snapshot
    FileChannel opened =
        FileChannel.open(
            file,
            java.util.Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE),
            PosixFilePermissions.asFileAttribute(AtomicFiles.OWNER_ONLY));
    try {
      Files.setPosixFilePermissions(file, AtomicFiles.OWNER_ONLY);
      Object key =
          Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS)
              .fileKey();
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      out.writeBytes(frame(META, "", ByteBuffer.allocate(8).putLong(next).array()));
      for (Map.Entry<String, byte[]> row : live.entrySet()) {
        out.writeBytes(frame(PUT, row.getKey(), row.getValue()));
      }
      hook.beforeForce();
      AtomicFiles.write(dir.resolve(SNAPSHOT), out.toByteArray(), AtomicFiles.OWNER_ONLY);
      FileChannel old = channel;
      long oldGeneration = generation;
      channel = opened;
      channelKey = key;
      generation = next;
      position = 0;
      opened = null;
      if (old != null) {
        old.close();
        Files.deleteIfExists(journal(oldGeneration));
      }
    } finally {
      if (opened != null) {
        opened.close();
        Files.deleteIfExists(file);
      }
    }
  }

  /**
   * {@code journal-<generation, 16 digits>.log}, in ASCII digits whatever the JVM's locale: a
   * formatter's {@code %d} writes the locale's digits (Arabic-Indic under {@code ar-EG}), which
   * {@link #JOURNAL} would not find again on the next start.
   */
  private Path journal(long gen) {
    String digits = Long.toString(gen);
    return dir.resolve(
        "journal-" + "0".repeat(Math.max(0, 16 - digits.length())) + digits + ".log");
  }

  // ---- recovery ----

  private void recover(Supplier<Map<String, byte[]>> legacy) throws IOException {
    Map<String, byte[]> state = new LinkedHashMap<>();
    long snapshotGeneration = -1;
    Path snapshot = dir.resolve(SNAPSHOT);
    Parsed snap = Files.exists(snapshot) ? readOrSetAside(snapshot) : null;
    if (snap != null) {
      Parsed p = snap;
      if (!p.damage().isEmpty() || p.tornAt() >= 0) {
        Path aside = snapshot.resolveSibling(SNAPSHOT + ".damaged");
        log.error(
            "The task snapshot {} is damaged ({}); kept as {}; its readable rows are restored",
            snapshot,
            p.describeDamage(),
            aside);
        setAside(snapshot, aside);
      }
      for (Record r : p.records()) {
        if (r.op() == META && snapshotGeneration < 0 && r.value().length == 8) {
          snapshotGeneration = ByteBuffer.wrap(r.value()).getLong();
        } else {
          apply(state, r);
        }
      }
      if (snapshotGeneration < 0) {
        log.error(
            "The task snapshot {} does not say which journal follows it; every journal is replayed",
            snapshot);
      }
    } else {
      state.putAll(legacy.get());
    }
    long highest = Math.max(0, snapshotGeneration);
    List<Long> journals = new ArrayList<>();
    try (var files = Files.list(dir)) {
      for (Path f : files.toList()) {
        Matcher m = JOURNAL.matcher(f.getFileName().toString());
        if (m.matches()) {
          journals.add(Long.parseLong(m.group(1)));
        }
      }
    }
    journals.sort(null);
    for (long gen : journals) {
      highest = Math.max(highest, gen);
      Path file = journal(gen);
      if (snapshotGeneration >= 0 && gen < snapshotGeneration) {
        continue; // compacted into the snapshot: deleted below
      }
      Parsed p = readOrSetAside(file);
      if (p == null) {
        continue;
      }
      if (!p.damage().isEmpty()) {
        Path aside = file.resolveSibling(file.getFileName() + ".damaged");
        log.error(
            "The task journal {} is damaged ({}); kept as {}; the readable records are restored",
            file,
            p.describeDamage(),
            aside);
        setAside(file, aside);
      }
      if (p.tornAt() >= 0) {
        log.warn(
            "Dropped the torn tail of the task journal {} at offset {}: a write cut short by a"
                + " crash, never made durable, so never acknowledged",
            file,
            p.tornAt());
      }
      p.records().forEach(r -> apply(state, r));
    }
    synchronized (lock) {
      rows.putAll(state);
      generation = highest;
      forcing = true;
    }
    try {
      compact(new LinkedHashMap<>(state));
    } catch (IOException e) {
      // A full or read-only disk must not keep the bridge from starting with the rows it read:
      // the next change compacts again, and fails until the disk takes it, as writes do.
      log.error(
          "Cannot write the task journal in {}: {}; the tasks read are kept in memory and every"
              + " change tries again",
          dir,
          e.toString());
      synchronized (lock) {
        broken = true;
        startupFailure = e;
      }
      return;
    } finally {
      synchronized (lock) {
        forcing = false;
      }
    }
    for (long gen : journals) {
      if (gen != generation) {
        Files.deleteIfExists(journal(gen));
      }
    }
  }

  /**
   * Why the compaction at open failed (the journal then holds the recovered rows in memory only,
   * and the files it read stay as they were), or null.
   */
  IOException startupFailure() {
    synchronized (lock) {
      return startupFailure;
    }
  }

  /**
   * A copy for a person to look at, owner-only as the original: the next compaction replaces it.
   */
  private static void setAside(Path file, Path aside) throws IOException {
    Files.copy(file, aside, StandardCopyOption.REPLACE_EXISTING);
    Files.setPosixFilePermissions(aside, AtomicFiles.OWNER_ONLY);
  }

  private static void apply(Map<String, byte[]> state, Record r) {
    if (r.op() == PUT) {
      state.put(r.key(), r.value());
    } else if (r.op() == DELETE) {
      state.remove(r.key());
    }
  }

  /**
   * The records of {@code file}; null, with the file moved aside and the reason logged, when it is
   * too large to be ours or cannot be read at all: the agent starts without its rows rather than
   * not at all, and the executor side still reports the processes that hold devices.
   */
  private static Parsed readOrSetAside(Path file) throws IOException {
    String problem;
    try {
      long size = Files.size(file);
      if (size <= MAX_FILE) {
        return parse(Files.readAllBytes(file));
      }
      problem = "it is " + size + " bytes, more than a task journal can be (" + MAX_FILE + ")";
    } catch (IOException e) {
      problem = "it cannot be read: " + e;
    }
    Path aside = file.resolveSibling(file.getFileName() + ".damaged");
    log.error("Skipped {}: {}; kept as {}", file, problem, aside);
    Files.move(file, aside, StandardCopyOption.REPLACE_EXISTING);
    return null;
  }

  /** One record as read back. */
  record Record(byte op, String key, byte[] value) {}

  /**
   * What a file held: its readable records, where unreadable bytes were skipped with readable
   * records after them ({@code damage}: offset and why), and where a torn tail began (-1 if none).
   */
  record Parsed(List<Record> records, List<String> damage, long tornAt) {
    String describeDamage() {
      List<String> all = new ArrayList<>(damage);
      if (tornAt >= 0) {
        all.add("unreadable from offset " + tornAt + " to the end");
      }
      return String.join("; ", all);
    }
  }

  static Parsed parse(byte[] bytes) {
    List<Record> records = new ArrayList<>();
    List<String> damage = new ArrayList<>();
    int pos = 0;
    while (pos < bytes.length) {
      Object r = read(bytes, pos);
      if (r instanceof Record rec) {
        records.add(rec);
        pos += HEADER_BYTES + ByteBuffer.wrap(bytes, pos + 4, 4).getInt();
        continue;
      }
      int next = pos + 1;
      while (next < bytes.length && !(read(bytes, next) instanceof Record)) {
        next++;
      }
      if (next >= bytes.length) {
        return new Parsed(records, damage, pos);
      }
      damage.add("offset " + pos + ": " + r + "; " + (next - pos) + " bytes skipped");
      pos = next;
    }
    return new Parsed(records, damage, -1);
  }

  /** The record at {@code pos}, or why there is none (a String). */
  private static Object read(byte[] bytes, int pos) {
    if (bytes.length - pos < HEADER_BYTES) {
      return "a record header cut short";
    }
    ByteBuffer b = ByteBuffer.wrap(bytes, pos, HEADER_BYTES);
    if (b.getInt() != MAGIC) {
      return "no record starts there";
    }
    int length = b.getInt();
    int crc = b.getInt();
    if (length < 3 || length > MAX_RECORD) {
      return "a record length of " + length;
    }
    if (bytes.length - pos - HEADER_BYTES < length) {
      return "a record of " + length + " bytes cut short";
    }
    if (crc != checksum(length, bytes, pos + HEADER_BYTES)) {
      return "a checksum mismatch";
    }
    ByteBuffer p = ByteBuffer.wrap(bytes, pos + HEADER_BYTES, length);
    byte op = p.get();
    int keyLength = Short.toUnsignedInt(p.getShort());
    if (op < PUT || op > META || keyLength > length - 3) {
      return "a record of unknown kind " + op;
    }
    byte[] key = new byte[keyLength];
    p.get(key);
    byte[] value = new byte[p.remaining()];
    p.get(value);
    return new Record(op, new String(key, StandardCharsets.UTF_8), value);
  }

  // ---- framing ----

  static byte[] frame(byte op, String key, byte[] value) throws RecordTooLargeException {
    byte[] k = key.getBytes(StandardCharsets.UTF_8);
    if (k.length > 0xffff) {
      throw new IllegalArgumentException("a task journal key is at most 65535 bytes");
    }
    long length = 3L + k.length + (value == null ? 0 : value.length);
    if (length > MAX_RECORD) {
      throw new RecordTooLargeException(
          "the task's checkpoint record would be "
              + length
              + " bytes, more than the "
              + MAX_RECORD
              + " a record may be");
    }
    ByteBuffer b = ByteBuffer.allocate(HEADER_BYTES + (int) length);
    b.putInt(MAGIC).putInt((int) length).putInt(0);
    b.put(op).putShort((short) k.length).put(k);
    if (value != null) {
      b.put(value);
    }
    byte[] out = b.array();
    ByteBuffer.wrap(out, 8, 4).putInt(checksum((int) length, out, HEADER_BYTES));
    return out;
  }

  private static int checksum(int length, byte[] bytes, int payloadAt) {
    CRC32C crc = new CRC32C();
    crc.update(ByteBuffer.allocate(4).putInt(length).array());
    crc.update(bytes, payloadAt, length);
    return (int) crc.getValue();
  }

  /** A record over {@link #MAX_RECORD}: refused, and not a failure of the disk. */
  static final class RecordTooLargeException extends IOException {
    private static final long serialVersionUID = 1L;

    RecordTooLargeException(String message) {
      super(message);
    }
  }
}
