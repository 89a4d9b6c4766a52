package io.acceld.kubelet;

import io.acceld.config.RegistrationMode;
import io.acceld.transport.SocketIdentity;
import io.acceld.util.DirectoryWatcher;
import io.acceld.util.GuardedBy;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches the kubelet's directories and reports each change, saying whether {@code kubelet.sock}
 * was (re-)created, which is how a kubelet restart (or its {@code serveWithRetry}) shows. Whether
 * our own sockets survived is for each {@link ResourcePlugin} to check; this class only knows the
 * kubelet's socket.
 *
 * <p>Identity is inode and modification time ({@link SocketIdentity}), and a CREATE event counts on
 * its own, because a re-created socket can reuse the old inode. The watcher also polls every {@link
 * #POLL}, so a missed event costs at most a poll. The kubelet's directories are on a disk, where
 * inotify reports every change at once, so the poll is only a backstop (an overflowed queue); a
 * directory that is removed and made again is watched again within a second ({@link
 * DirectoryWatcher}). At 1 s it was a sixth of an idle agent's wake-ups.
 */
final class KubeletRestartWatch implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(KubeletRestartWatch.class);

  static final Duration POLL = Duration.ofSeconds(5);

  private final KubeletSettings settings;
  private final Consumer<SocketIdentity> onChange;
  private final DirectoryWatcher watcher;

  /** The kubelet.sock we last saw; only the watcher thread (and the constructor) touch it. */
  @GuardedBy("this")
  private SocketIdentity kubelet;

  /**
   * @param onChange called on the watch thread after every change or poll, with the new {@code
   *     kubelet.sock}'s identity if it was just (re-)created, else null
   */
  KubeletRestartWatch(KubeletSettings settings, Consumer<SocketIdentity> onChange)
      throws IOException {
    this.settings = settings;
    this.onChange = onChange;
    synchronized (this) {
      this.kubelet = SocketIdentity.of(settings.kubeletSocket());
    }
    this.watcher =
        DirectoryWatcher.creating(
            "acceld-kubelet-watch", settings.watchedDirs(), POLL, wake -> check(wake.created()));
  }

  void start() {
    watcher.start();
  }

  boolean alive() {
    return watcher.alive();
  }

  /**
   * @param created names created in the watched directories since the last check
   */
  synchronized void check(Set<String> created) {
    SocketIdentity recreated = null;
    if (settings.mode() == RegistrationMode.CLASSIC) {
      Path socket = settings.kubeletSocket();
      SocketIdentity key = SocketIdentity.of(socket);
      boolean createEvent = created.contains(KubeletSettings.KUBELET_SOCKET);
      if (key != null && (createEvent || !key.equals(kubelet))) {
        log.info(
            "{} {}",
            socket,
            kubelet != null ? "was re-created: the kubelet restarted" : "appeared");
        recreated = key;
      }
      if (key != null) {
        kubelet = key;
      }
    }
    onChange.accept(recreated);
  }

  @Override
  public void close() {
    watcher.close();
  }
}
