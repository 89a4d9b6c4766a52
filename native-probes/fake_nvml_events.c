/*
 * Event sets of acceld's NVML test double.
 *
 * Like real NVML, an event is queued only into sets where that GPU registered that event type,
 * and events raised before registration are not recorded. Each set has its own queue; all
 * waiters share one condition variable (broadcast on any change) and re-check their own set.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdlib.h>
#include <time.h>

#include "fake_nvml_internal.h"

static struct nvmlEventSet_st *find_set_locked(nvmlEventSet_t set) {
  for (struct nvmlEventSet_st *s = g_fake.sets; s != NULL; s = s->next) {
    if (s == set) return s;
  }
  return NULL;
}

static void unlink_set_locked(struct nvmlEventSet_st *set) {
  for (struct nvmlEventSet_st **p = &g_fake.sets; *p != NULL; p = &(*p)->next) {
    if (*p == set) {
      *p = set->next;
      return;
    }
  }
}

/* A set someone is blocked on cannot be freed under them: the last waiter frees it. */
static void release_set_locked(struct nvmlEventSet_st *set) {
  set->next = NULL;
  if (set->waiters > 0) {
    set->freed = 1;
  } else {
    free(set);
  }
}

void fake_free_all_sets_locked(void) {
  struct nvmlEventSet_st *s = g_fake.sets;
  g_fake.sets = NULL;
  while (s != NULL) {
    struct nvmlEventSet_st *next = s->next;
    release_set_locked(s);
    s = next;
  }
}

int fake_queue_event_locked(unsigned int gpu, unsigned long long type, unsigned long long data) {
  return fake_queue_instance_event_locked(gpu, type, data, NVML_VALUE_NOT_AVAILABLE_UINT,
                                          NVML_VALUE_NOT_AVAILABLE_UINT);
}

int fake_queue_instance_event_locked(unsigned int gpu, unsigned long long type,
                                     unsigned long long data, unsigned int gi, unsigned int ci) {
  int queued = 0;
  for (struct nvmlEventSet_st *s = g_fake.sets; s != NULL; s = s->next) {
    if ((s->registered[gpu] & type) == 0) continue;
    if (s->count == FAKE_QUEUE_CAPACITY) {
      s->dropped++;
      continue;
    }
    struct fake_event *e = &s->queue[(s->head + s->count) % FAKE_QUEUE_CAPACITY];
    e->gpu = gpu;
    e->type = type;
    e->data = data;
    e->gi = gi;
    e->ci = ci;
    s->count++;
    queued++;
  }
  if (queued > 0) pthread_cond_broadcast(&g_fake.changed);
  return queued;
}

#ifndef FAKE_SPARSE /* absent from the "foreign NVML" variant */
FAKE_EXPORT nvmlReturn_t nvmlEventSetCreate(nvmlEventSet_t *set) {
  nvmlReturn_t rc = fake_enter();
  if (rc != NVML_SUCCESS) return rc;
  if (set == NULL) return fake_leave(NVML_ERROR_INVALID_ARGUMENT);
  struct nvmlEventSet_st *s = calloc(1, sizeof(*s));
  if (s == NULL) return fake_leave(NVML_ERROR_MEMORY);
  s->next = g_fake.sets;
  g_fake.sets = s;
  *set = s;
  return fake_leave(NVML_SUCCESS);
}
#endif

FAKE_EXPORT nvmlReturn_t nvmlEventSetFree(nvmlEventSet_t set) {
  nvmlReturn_t rc = fake_enter();
  if (rc != NVML_SUCCESS) return rc;
  struct nvmlEventSet_st *s = find_set_locked(set);
  if (s == NULL) return fake_leave(NVML_ERROR_INVALID_ARGUMENT);
  unlink_set_locked(s);
  release_set_locked(s);
  pthread_cond_broadcast(&g_fake.changed);
  return fake_leave(NVML_SUCCESS);
}

FAKE_EXPORT nvmlReturn_t nvmlDeviceGetSupportedEventTypes(nvmlDevice_t device,
                                                          unsigned long long *eventTypes) {
  struct nvmlDevice_st *d;
  nvmlReturn_t rc = fake_enter_device(device, &d, 1);
  if (rc != NVML_SUCCESS) return rc;
  if (eventTypes == NULL) return fake_leave(NVML_ERROR_INVALID_ARGUMENT);
  *eventTypes = d->supported_events;
  return fake_leave(NVML_SUCCESS);
}

FAKE_EXPORT nvmlReturn_t nvmlDeviceRegisterEvents(nvmlDevice_t device,
                                                  unsigned long long eventTypes,
                                                  nvmlEventSet_t set) {
  struct nvmlDevice_st *d;
  nvmlReturn_t rc = fake_enter_device(device, &d, 1);
  if (rc != NVML_SUCCESS) return rc;
  struct nvmlEventSet_st *s = find_set_locked(set);
  if (s == NULL) return fake_leave(NVML_ERROR_INVALID_ARGUMENT);
  /* Asking for an unsupported type registers nothing (the set stays usable). */
  if ((eventTypes & ~d->supported_events) != 0) return fake_leave(NVML_ERROR_NOT_SUPPORTED);
  s->registered[d->index] |= eventTypes;
  return fake_leave(NVML_SUCCESS);
}

static int registered_gpu_lost_locked(const struct nvmlEventSet_st *s) {
  for (unsigned int i = 0; i < g_fake.sc.gpu_count; i++) {
    if (s->registered[i] != 0 && g_fake.sc.gpus[i].lost) return 1;
  }
  return 0;
}

static struct timespec deadline_after(unsigned int ms) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  t.tv_sec += ms / 1000;
  t.tv_nsec += (long)(ms % 1000) * 1000000L;
  if (t.tv_nsec >= 1000000000L) {
    t.tv_sec++;
    t.tv_nsec -= 1000000000L;
  }
  return t;
}

static int passed(const struct timespec *deadline) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return now.tv_sec > deadline->tv_sec ||
         (now.tv_sec == deadline->tv_sec && now.tv_nsec >= deadline->tv_nsec);
}

FAKE_EXPORT nvmlReturn_t nvmlEventSetWait_v2(nvmlEventSet_t set, nvmlEventData_t *data,
                                             unsigned int timeoutms) {
  nvmlReturn_t rc = fake_enter();
  if (rc != NVML_SUCCESS) return rc;
  struct nvmlEventSet_st *s = find_set_locked(set);
  if (s == NULL || data == NULL) return fake_leave(NVML_ERROR_INVALID_ARGUMENT);
  struct timespec deadline = deadline_after(timeoutms);
  s->waiters++;
  g_fake.waiting++;
  for (;;) {
    if (g_fake.init_count == 0) {
      rc = NVML_ERROR_UNINITIALIZED; /* shut down while waiting */
      break;
    }
    if (s->freed) {
      rc = NVML_ERROR_INVALID_ARGUMENT; /* freed while waiting */
      break;
    }
    if (g_fake.fail_waits_left > 0) {
      g_fake.fail_waits_left--;
      rc = g_fake.fail_waits_code;
      break;
    }
    if (registered_gpu_lost_locked(s)) {
      rc = NVML_ERROR_GPU_IS_LOST;
      break;
    }
    if (s->count > 0) {
      const struct fake_event *e = &s->queue[s->head];
      data->device = &g_fake.sc.gpus[e->gpu];
      data->eventType = e->type;
      data->eventData = e->data;
      data->gpuInstanceId = e->gi; /* NVML_VALUE_NOT_AVAILABLE_UINT: the whole GPU */
      data->computeInstanceId = e->ci;
      s->head = (s->head + 1) % FAKE_QUEUE_CAPACITY;
      s->count--;
      rc = NVML_SUCCESS;
      break;
    }
    if (passed(&deadline)) {
      rc = NVML_ERROR_TIMEOUT;
      break;
    }
    int wrc = pthread_cond_timedwait(&g_fake.changed, &g_fake.lock, &deadline);
    (void)wrc; /* ETIMEDOUT or a wake-up: either way re-check everything above */
  }
  s->waiters--;
  g_fake.waiting--;
  if (s->freed && s->waiters == 0) free(s);
  return fake_leave(rc);
}
