/*
 * Fault injection for acceld's NVML test double (these are not NVML functions and do not
 * count as NVML calls).
 *
 * In-process (tests bind these through JNA on the same library copy, hence the same globals):
 *   int acceld_fake_inject_event(gpu, eventType, eventData)
 *       -> number of event sets it was queued in (0 when no set registered that type for that
 *          GPU), -1 when not initialised, -2 for a bad GPU index
 *   int acceld_fake_set_lost(gpu, lost)                         -> NVML return code
 *   int acceld_fake_fail_waits(returnCode, count)               -> NVML return code
 *   int acceld_fake_set_hung(gpu, hung)                         -> NVML return code
 *   int acceld_fake_set_ecc(gpu, corrected, uncorrected)        -> NVML return code
 *   int acceld_fake_set_retired_pending(gpu, pending)           -> NVML return code
 *   unsigned long long acceld_fake_call_count(void)             (in fake_nvml.c)
 *   unsigned int acceld_fake_waiting(void)                      threads in nvmlEventSetWait_v2
 *
 * Out-of-process: a thread started by the first nvmlInit (stopped by the final nvmlShutdown)
 * watches the control file ($ACCELD_FAKE_NVML_CONTROL, else nvml-control next to the scenario)
 * with inotify (falling back to a 50 ms poll where inotify is unavailable) and executes complete
 * lines appended since init. Event-driven, so an idle simulated agent pays no wake-ups for it:
 * the 50 ms poll alone was 3 of an idle agent's ~25 CPU ticks per 30 s.
 *   xid <gpu> <code> | dbe <gpu> | sbe <gpu> | lost <gpu> <0|1> | fail-waits <code> <count>
 *   | hang <gpu> <0|1>  (every call on that GPU blocks until "hang <gpu> 0": a wedged driver)
 *   | xid <gpu> <code> <gi> <ci>  (attributed to one MIG instance; 4294967295 = not attributable)
 *   | mig <gpu> [<profile>[@<gi>] ...]  (re-layout, see fake_nvml_mig.c) | mig-mode <gpu> <cur> <pend>
 * dbe/sbe bump the uncorrected/corrected ECC counter and raise the matching event.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <libgen.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <time.h>
#include <unistd.h>

#include "fake_nvml_internal.h"

#define POLL_MS 50

/* ---------------------------------------------------------------- shared implementations */

static nvmlReturn_t gpu_locked(unsigned int gpu, struct nvmlDevice_st **out) {
  if (g_fake.init_count == 0) return NVML_ERROR_UNINITIALIZED;
  if (gpu >= g_fake.sc.gpu_count) return NVML_ERROR_INVALID_ARGUMENT;
  *out = &g_fake.sc.gpus[gpu];
  return NVML_SUCCESS;
}

int fake_inject(unsigned int gpu, unsigned long long type, unsigned long long data) {
  struct nvmlDevice_st *d;
  pthread_mutex_lock(&g_fake.lock);
  nvmlReturn_t rc = gpu_locked(gpu, &d);
  int result = rc == NVML_SUCCESS ? fake_queue_event_locked(gpu, type, data) : -rc;
  pthread_mutex_unlock(&g_fake.lock);
  return result;
}

int fake_set_lost(unsigned int gpu, int lost) {
  struct nvmlDevice_st *d;
  pthread_mutex_lock(&g_fake.lock);
  nvmlReturn_t rc = gpu_locked(gpu, &d);
  if (rc == NVML_SUCCESS) {
    d->lost = lost != 0;
    pthread_cond_broadcast(&g_fake.changed); /* blocked waits return GPU_IS_LOST now */
  }
  pthread_mutex_unlock(&g_fake.lock);
  return rc;
}

int fake_set_hung(unsigned int gpu, int hung) {
  struct nvmlDevice_st *d;
  pthread_mutex_lock(&g_fake.lock);
  nvmlReturn_t rc = gpu_locked(gpu, &d);
  if (rc == NVML_SUCCESS) {
    d->hung = hung != 0;
    pthread_cond_broadcast(&g_fake.changed); /* calls blocked on it return now */
  }
  pthread_mutex_unlock(&g_fake.lock);
  return rc;
}

int fake_fail_waits(int code, int count) {
  pthread_mutex_lock(&g_fake.lock);
  nvmlReturn_t rc = NVML_SUCCESS;
  if (g_fake.init_count == 0) {
    rc = NVML_ERROR_UNINITIALIZED;
  } else if (count < 0) {
    rc = NVML_ERROR_INVALID_ARGUMENT;
  } else {
    g_fake.fail_waits_code = code;
    g_fake.fail_waits_left = count;
    pthread_cond_broadcast(&g_fake.changed);
  }
  pthread_mutex_unlock(&g_fake.lock);
  return rc;
}

/* Adds to the ECC counters and raises the matching ECC event (control-file sbe/dbe). */
int fake_add_ecc(unsigned int gpu, unsigned long long corrected, unsigned long long uncorrected) {
  struct nvmlDevice_st *d;
  pthread_mutex_lock(&g_fake.lock);
  nvmlReturn_t rc = gpu_locked(gpu, &d);
  if (rc == NVML_SUCCESS) {
    d->ecc_corrected += corrected;
    d->ecc_uncorrected += uncorrected;
    if (corrected > 0) fake_queue_event_locked(gpu, nvmlEventTypeSingleBitEccError, 0);
    if (uncorrected > 0) fake_queue_event_locked(gpu, nvmlEventTypeDoubleBitEccError, 0);
  }
  pthread_mutex_unlock(&g_fake.lock);
  return rc;
}

/* ---------------------------------------------------------------- exported controls */

FAKE_EXPORT int acceld_fake_inject_event(unsigned int gpu, unsigned long long eventType,
                                         unsigned long long eventData) {
  return fake_inject(gpu, eventType, eventData);
}

FAKE_EXPORT int acceld_fake_set_lost(unsigned int gpu, int lost) {
  return fake_set_lost(gpu, lost);
}

FAKE_EXPORT int acceld_fake_set_hung(unsigned int gpu, int hung) {
  return fake_set_hung(gpu, hung);
}

FAKE_EXPORT int acceld_fake_fail_waits(int returnCode, int count) {
  return fake_fail_waits(returnCode, count);
}

FAKE_EXPORT unsigned int acceld_fake_waiting(void) {
  pthread_mutex_lock(&g_fake.lock);
  unsigned int waiting = g_fake.waiting;
  pthread_mutex_unlock(&g_fake.lock);
  return waiting;
}

FAKE_EXPORT int acceld_fake_set_ecc(unsigned int gpu, unsigned long long corrected,
                                    unsigned long long uncorrected) {
  struct nvmlDevice_st *d;
  pthread_mutex_lock(&g_fake.lock);
  nvmlReturn_t rc = gpu_locked(gpu, &d);
  if (rc == NVML_SUCCESS) {
    d->ecc_corrected = corrected;
    d->ecc_uncorrected = uncorrected;
  }
  pthread_mutex_unlock(&g_fake.lock);
  return rc;
}

FAKE_EXPORT int acceld_fake_set_retired_pending(unsigned int gpu, int pending) {
  struct nvmlDevice_st *d;
  pthread_mutex_lock(&g_fake.lock);
  nvmlReturn_t rc = gpu_locked(gpu, &d);
  if (rc == NVML_SUCCESS) d->retired_pending = pending != 0;
  pthread_mutex_unlock(&g_fake.lock);
  return rc;
}

/* ---------------------------------------------------------------- control file */

static void execute(const char *line) {
  unsigned int gpu;
  unsigned long long code;
  int a, b, n = 0;
  size_t len = strlen(line);
  while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r' || line[len - 1] == ' ')) len--;
  const char *p = line;
  while (*p == ' ' || *p == '\t') p++;
  if (*p == '\0' || *p == '\n' || *p == '#') return;
  size_t rest = len - (size_t)(p - line);
  int rc;
  unsigned int gi, ci;
  if (sscanf(p, "xid %u %llu %u %u%n", &gpu, &code, &gi, &ci, &n) == 4 && (size_t)n == rest) {
    rc = fake_inject_instance(gpu, nvmlEventTypeXidCriticalError, code, gi, ci) < 0
             ? NVML_ERROR_INVALID_ARGUMENT
             : NVML_SUCCESS;
  } else if (sscanf(p, "mig-mode %u %d %d%n", &gpu, &a, &b, &n) == 3 && (size_t)n == rest) {
    rc = fake_mig_mode(gpu, a, b);
  } else if (sscanf(p, "mig %u%n", &gpu, &n) == 1 && (n == (int)rest || p[n] == ' ')) {
    char copy[512];
    char *names[FAKE_MIG_SLOTS + 1];
    int count = 0;
    if (rest - (size_t)n >= sizeof(copy)) {
      rc = NVML_ERROR_INVALID_ARGUMENT;
    } else {
      memcpy(copy, p + n, rest - (size_t)n);
      copy[rest - (size_t)n] = '\0';
      char *save = NULL;
      for (char *t = strtok_r(copy, " \t", &save); t != NULL; t = strtok_r(NULL, " \t", &save)) {
        if (count == FAKE_MIG_SLOTS + 1) break;
        names[count++] = t;
      }
      rc = count > FAKE_MIG_SLOTS ? NVML_ERROR_INVALID_ARGUMENT : fake_mig_relayout(gpu, names, count);
    }
  } else if (sscanf(p, "xid %u %llu%n", &gpu, &code, &n) == 2 && (size_t)n == rest) {
    rc = fake_inject(gpu, nvmlEventTypeXidCriticalError, code) < 0 ? NVML_ERROR_INVALID_ARGUMENT
                                                                   : NVML_SUCCESS;
  } else if (sscanf(p, "dbe %u%n", &gpu, &n) == 1 && (size_t)n == rest) {
    rc = fake_add_ecc(gpu, 0, 1);
  } else if (sscanf(p, "sbe %u%n", &gpu, &n) == 1 && (size_t)n == rest) {
    rc = fake_add_ecc(gpu, 1, 0);
  } else if (sscanf(p, "lost %u %d%n", &gpu, &a, &n) == 2 && (size_t)n == rest) {
    rc = fake_set_lost(gpu, a);
  } else if (sscanf(p, "hang %u %d%n", &gpu, &a, &n) == 2 && (size_t)n == rest) {
    rc = fake_set_hung(gpu, a);
  } else if (sscanf(p, "fail-waits %d %d%n", &a, &b, &n) == 2 && (size_t)n == rest) {
    rc = fake_fail_waits(a, b);
  } else {
    fprintf(stderr, "fake-nvml: %s: unknown command '%.*s'; line ignored\n", g_fake.control_path,
            (int)rest, p);
    return;
  }
  if (rc != NVML_SUCCESS) {
    fprintf(stderr, "fake-nvml: %s: '%.*s' failed with %d\n", g_fake.control_path, (int)rest, p,
            rc);
  }
}

static long file_size(const char *path) {
  FILE *f = fopen(path, "r");
  if (f == NULL) return 0;
  long size = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : 0;
  fclose(f);
  return size < 0 ? 0 : size;
}

/* Executes complete lines appended since the last poll; a partial last line waits for its \n. */
static void poll_control_file(void) {
  static char line[1024]; /* only the control thread uses it */
  FILE *f = fopen(g_fake.control_path, "r");
  if (f == NULL) {
    g_fake.control_offset = 0; /* removed: a new file starts from the beginning */
    return;
  }
  if (fseek(f, 0, SEEK_END) == 0 && ftell(f) < g_fake.control_offset) {
    g_fake.control_offset = 0; /* truncated and rewritten */
  }
  if (fseek(f, g_fake.control_offset, SEEK_SET) == 0) {
    while (fgets(line, sizeof(line), f) != NULL) {
      size_t len = strlen(line);
      if (len == 0 || (line[len - 1] != '\n' && len < sizeof(line) - 1)) break;
      g_fake.control_offset += (long)len;
      execute(line);
    }
  }
  fclose(f);
}

/* Sleeps until the control file's directory changes or stop is signalled. 0 = inotify failed. */
static int wait_for_change(int inotify_fd) {
  struct pollfd fds[2] = {{inotify_fd, POLLIN, 0}, {g_fake.control_wake_fd, POLLIN, 0}};
  if (poll(fds, 2, -1) < 0) return 0;
  if (fds[0].revents & POLLIN) {
    char events[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
    if (read(inotify_fd, events, sizeof(events)) < 0) return 0; /* drained; content is not needed */
  }
  return 1;
}

static int watch_directory(void) {
  char dir[FAKE_PATH_MAX];
  snprintf(dir, sizeof(dir), "%s", g_fake.control_path);
  int fd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
  if (fd < 0) return -1;
  /* The directory, not the file: the file may be created, replaced or removed later. */
  if (inotify_add_watch(fd, dirname(dir), IN_MODIFY | IN_CLOSE_WRITE | IN_CREATE | IN_MOVED_TO) <
      0) {
    close(fd);
    return -1;
  }
  return fd;
}

static void *control_main(void *arg) {
  (void)arg;
  int inotify_fd = g_fake.control_wake_fd >= 0 ? watch_directory() : -1;
  pthread_mutex_lock(&g_fake.lock);
  while (!g_fake.control_stop) {
    pthread_mutex_unlock(&g_fake.lock);
    poll_control_file();
    if (inotify_fd >= 0) {
      if (!wait_for_change(inotify_fd)) {
        close(inotify_fd);
        inotify_fd = -1;
      }
      pthread_mutex_lock(&g_fake.lock);
      continue;
    }
    pthread_mutex_lock(&g_fake.lock);
    struct timespec deadline;
    clock_gettime(CLOCK_MONOTONIC, &deadline);
    deadline.tv_nsec += POLL_MS * 1000000L;
    if (deadline.tv_nsec >= 1000000000L) {
      deadline.tv_sec++;
      deadline.tv_nsec -= 1000000000L;
    }
    while (!g_fake.control_stop &&
           pthread_cond_timedwait(&g_fake.changed, &g_fake.lock, &deadline) == 0) {
      /* woken by unrelated activity: keep sleeping until the poll deadline */
    }
  }
  pthread_mutex_unlock(&g_fake.lock);
  if (inotify_fd >= 0) close(inotify_fd);
  return NULL;
}

void fake_control_start(const char *scenario_path) {
  fake_control_path(g_fake.control_path, sizeof(g_fake.control_path), scenario_path);
  g_fake.control_offset = file_size(g_fake.control_path); /* only lines appended from now on */
  pthread_mutex_lock(&g_fake.lock);
  g_fake.control_stop = 0;
  pthread_mutex_unlock(&g_fake.lock);
  g_fake.control_wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (pthread_create(&g_fake.control_thread, NULL, control_main, NULL) != 0) {
    fprintf(stderr, "fake-nvml: cannot start the control-file thread; %s is not watched\n",
            g_fake.control_path);
    if (g_fake.control_wake_fd >= 0) close(g_fake.control_wake_fd);
    g_fake.control_wake_fd = -1;
    return;
  }
  g_fake.control_running = 1;
}

void fake_control_stop(void) {
  if (!g_fake.control_running) return;
  pthread_mutex_lock(&g_fake.lock);
  g_fake.control_stop = 1;
  pthread_cond_broadcast(&g_fake.changed);
  pthread_mutex_unlock(&g_fake.lock);
  if (g_fake.control_wake_fd >= 0) {
    uint64_t one = 1;
    if (write(g_fake.control_wake_fd, &one, sizeof(one)) < 0) { /* cannot fail on a fresh eventfd */
    }
  }
  pthread_join(g_fake.control_thread, NULL);
  if (g_fake.control_wake_fd >= 0) close(g_fake.control_wake_fd);
  g_fake.control_wake_fd = -1;
  g_fake.control_running = 0;
}
