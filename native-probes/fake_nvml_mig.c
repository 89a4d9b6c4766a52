/*
 * MIG in acceld's NVML test double: MIG devices with their own handles, UUIDs, memory, GPU- and
 * compute-instance IDs and attributes, the GPU-instance profile table, and run-time re-layout.
 *
 * Modelled on what the mig-and-labels reference (sections 1 and 7) says real drivers do, where
 * it differs from simple mocks: profile IDs are not profile indices, GPU-instance IDs are not
 * dense, MIG indices go sparse after a destroyed instance (NOT_FOUND), parent-only calls on a MIG
 * handle fail (INVALID_ARGUMENT), nvmlDeviceGetAttributes_v2 is NOT_SUPPORTED on a parent, and
 * without the MIG monitor capability GPU-instance lookups answer NO_PERMISSION.
 *
 * Scenario:  mig <gpu> <profile>[@<gi>] ...      (after that GPU's "gpu" line; it needs mig=1)
 * Control:   mig <gpu> [<profile>[@<gi>] ...]    re-layout; posts nvmlEventMigConfigChange
 *            mig-mode <gpu> <current> <pending>   (a pending mode takes effect at "reset")
 *            xid <gpu> <code> <gi> <ci>           an XID attributed to one instance
 * A profile is a name of the table below ("1g.10gb", "3g.40gb", "1g.10gb+me"), or "1c.3g.40gb"
 * for a compute instance using one of a 3-slice GPU instance's slices.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_nvml_internal.h"

/* An H100 80GB's GPU-instance profiles (indices as in nvml.h, IDs as nvidia-smi mig -lgip). */
static const struct fake_mig_profile PROFILES[] = {
    {NVML_GPU_INSTANCE_PROFILE_1_SLICE, 19, 1, 7, 16, 1, 1, 0, 0, 9856, "1g.10gb"},
    {NVML_GPU_INSTANCE_PROFILE_2_SLICE, 14, 2, 3, 32, 2, 2, 0, 0, 19968, "2g.20gb"},
    {NVML_GPU_INSTANCE_PROFILE_3_SLICE, 9, 3, 2, 60, 3, 3, 0, 0, 40192, "3g.40gb"},
    {NVML_GPU_INSTANCE_PROFILE_4_SLICE, 5, 4, 1, 64, 4, 4, 0, 0, 40192, "4g.40gb"},
    {NVML_GPU_INSTANCE_PROFILE_7_SLICE, 0, 7, 1, 132, 8, 7, 7, 1, 80896, "7g.80gb"},
    {NVML_GPU_INSTANCE_PROFILE_1_SLICE_REV1, 20, 1, 1, 16, 1, 1, 1, 1, 9856, "1g.10gb+me"},
    {NVML_GPU_INSTANCE_PROFILE_1_SLICE_REV2, 15, 1, 4, 26, 1, 1, 0, 0, 19968, "1g.20gb"},
};
#define PROFILE_COUNT (sizeof(PROFILES) / sizeof(PROFILES[0]))

/* Non-dense GPU-instance IDs, as one A100 reported them (7, 8, 9, 11-14). */
static const unsigned int DEFAULT_GI[FAKE_MIG_SLOTS] = {7, 8, 9, 11, 12, 13, 14};

const struct fake_mig_profile *fake_mig_profile(unsigned int index) {
  for (size_t i = 0; i < PROFILE_COUNT; i++) {
    if (PROFILES[i].index == index) return &PROFILES[i];
  }
  return NULL;
}

static const struct fake_mig_profile *profile_named(const char *name) {
  for (size_t i = 0; i < PROFILE_COUNT; i++) {
    if (strcmp(PROFILES[i].name, name) == 0) return &PROFILES[i];
  }
  return NULL;
}

struct fake_mig *fake_mig_locked(nvmlDevice_t handle) {
  uintptr_t p = (uintptr_t)handle;
  uintptr_t base = (uintptr_t)&g_fake.sc.migs[0][0];
  uintptr_t end = (uintptr_t)&g_fake.sc.migs[g_fake.sc.gpu_count][0];
  if (p < base || p >= end || (p - base) % sizeof(struct fake_mig) != 0) return NULL;
  struct fake_mig *m = (struct fake_mig *)handle;
  return m->used ? m : NULL;
}

static void mig_uuid(char *out, size_t size, unsigned int gpu, unsigned int generation,
                     unsigned int gi, unsigned int ci) {
  snprintf(out, size, "MIG-%08x-%04x-5%03x-a%03x-%012x", 0x6d000000u | (gpu << 8) | (generation & 0xffu),
           gpu & 0xffffu, gi & 0xfffu, ci & 0xfffu, (gpu << 16) | (gi << 8) | ci);
}

const char *fake_mig_layout(struct fake_scenario *sc, unsigned int gpu, char **names, int n) {
  struct fake_mig next[FAKE_MIG_SLOTS];
  unsigned int slices = 0;
  if (gpu >= sc->gpu_count) return "no such gpu";
  if (n > FAKE_MIG_SLOTS) return "more than 7 MIG devices";
  memset(next, 0, sizeof(next));
  struct nvmlDevice_st *d = &sc->gpus[gpu];
  unsigned int generation = d->mig_generation + 1;
  for (int i = 0; i < n; i++) {
    char name[64];
    unsigned int gi = DEFAULT_GI[i], ci_slices = 0;
    const char *at = strchr(names[i], '@');
    size_t len = at != NULL ? (size_t)(at - names[i]) : strlen(names[i]);
    if (len == 0 || len >= sizeof(name)) return "bad profile";
    memcpy(name, names[i], len);
    name[len] = '\0';
    if (at != NULL) {
      char *end;
      unsigned long v = strtoul(at + 1, &end, 10);
      if (*end != '\0' || end == at + 1 || v > 1000) return "bad @gi";
      gi = (unsigned int)v;
    }
    const char *gname = name;
    unsigned int c;
    int consumed = 0;
    if (sscanf(name, "%uc.%n", &c, &consumed) == 1 && consumed > 0) {
      ci_slices = c;
      gname = name + consumed;
    }
    const struct fake_mig_profile *p = profile_named(gname);
    if (p == NULL) return "unknown profile";
    if (ci_slices == 0) ci_slices = p->slices;
    if (ci_slices > p->slices) return "more compute slices than the GPU instance has";
    for (int j = 0; j < i; j++) {
      if (next[j].gi == gi) return "duplicate gi";
    }
    next[i].used = 1;
    next[i].gpu = gpu;
    next[i].gi = gi;
    next[i].ci = 0;
    next[i].profile = p->index;
    next[i].ci_slices = ci_slices;
    next[i].placement = slices;
    mig_uuid(next[i].uuid, sizeof(next[i].uuid), gpu, generation, gi, 0);
    slices += p->slices;
  }
  if (slices > 7) return "more than 7 slices";
  memcpy(sc->migs[gpu], next, sizeof(next));
  d->mig_generation = generation;
  return NULL;
}

/* ---------------------------------------------------------------- controls */

int fake_mig_relayout(unsigned int gpu, char **names, int n) {
  pthread_mutex_lock(&g_fake.lock);
  int rc = NVML_SUCCESS;
  if (g_fake.init_count == 0) {
    rc = NVML_ERROR_UNINITIALIZED;
  } else if (gpu >= g_fake.sc.gpu_count) {
    rc = NVML_ERROR_INVALID_ARGUMENT;
  } else if (g_fake.sc.gpus[gpu].mig != 1 && n > 0) {
    rc = NVML_ERROR_NOT_SUPPORTED; /* MIG devices need MIG mode */
  } else {
    const char *err = fake_mig_layout(&g_fake.sc, gpu, names, n);
    if (err != NULL) {
      fprintf(stderr, "fake-nvml: mig %u: %s\n", gpu, err);
      rc = NVML_ERROR_INVALID_ARGUMENT;
    } else {
      fake_queue_event_locked(gpu, nvmlEventMigConfigChange, 0);
    }
  }
  pthread_mutex_unlock(&g_fake.lock);
  return rc;
}

int fake_mig_mode(unsigned int gpu, int current, int pending) {
  pthread_mutex_lock(&g_fake.lock);
  int rc = NVML_SUCCESS;
  if (g_fake.init_count == 0) {
    rc = NVML_ERROR_UNINITIALIZED;
  } else if (gpu >= g_fake.sc.gpu_count || current < 0 || current > 1 || pending < 0 ||
             pending > 1) {
    rc = NVML_ERROR_INVALID_ARGUMENT;
  } else if (g_fake.sc.gpus[gpu].mig < 0) {
    rc = NVML_ERROR_NOT_SUPPORTED;
  } else {
    struct nvmlDevice_st *d = &g_fake.sc.gpus[gpu];
    if (current == 0) memset(g_fake.sc.migs[gpu], 0, sizeof(g_fake.sc.migs[gpu]));
    d->mig = current;
    d->mig_pending = pending;
    d->mig_generation++;
    fake_queue_event_locked(gpu, nvmlEventMigConfigChange, 0);
  }
  pthread_mutex_unlock(&g_fake.lock);
  return rc;
}

int fake_inject_instance(unsigned int gpu, unsigned long long type, unsigned long long data,
                         unsigned int gi, unsigned int ci) {
  pthread_mutex_lock(&g_fake.lock);
  int result;
  if (g_fake.init_count == 0) {
    result = -NVML_ERROR_UNINITIALIZED;
  } else if (gpu >= g_fake.sc.gpu_count) {
    result = -NVML_ERROR_INVALID_ARGUMENT;
  } else {
    result = fake_queue_instance_event_locked(gpu, type, data, gi, ci);
  }
  pthread_mutex_unlock(&g_fake.lock);
  return result;
}

FAKE_EXPORT int acceld_fake_inject_instance_event(unsigned int gpu, unsigned long long eventType,
                                                  unsigned long long eventData, unsigned int gi,
                                                  unsigned int ci) {
  return fake_inject_instance(gpu, eventType, eventData, gi, ci);
}

/* ---------------------------------------------------------------- NVML entry points */

#ifndef FAKE_OLD_DRIVER /* MIG arrived with 11.0 (R450); the old driver predates it */

/* A parent GPU's handle, on the lock, honouring hung and lost as fake_enter_device does. */
static nvmlReturn_t enter_parent(nvmlDevice_t device, struct nvmlDevice_st **out) {
  return fake_enter_device(device, out, 1);
}

/* A MIG handle, on the lock; its parent's hang and loss apply to it. */
static nvmlReturn_t enter_mig(nvmlDevice_t device, struct fake_mig **out) {
  nvmlReturn_t rc = fake_enter();
  if (rc != NVML_SUCCESS) return rc;
  struct fake_mig *m = fake_mig_locked(device);
  if (m == NULL) return fake_leave(NVML_ERROR_INVALID_ARGUMENT);
  struct nvmlDevice_st *parent = &g_fake.sc.gpus[m->gpu];
  while (parent->hung && g_fake.init_count > 0) pthread_cond_wait(&g_fake.changed, &g_fake.lock);
  if (g_fake.init_count == 0) return fake_leave(NVML_ERROR_UNINITIALIZED);
  if (parent->lost) return fake_leave(NVML_ERROR_GPU_IS_LOST);
  if (!m->used) return fake_leave(NVML_ERROR_INVALID_ARGUMENT); /* destroyed while hung */
  *out = m;
  return NVML_SUCCESS;
}

FAKE_EXPORT nvmlReturn_t nvmlDeviceGetMaxMigDeviceCount(nvmlDevice_t device, unsigned int *count) {
  struct nvmlDevice_st *d;
  nvmlReturn_t rc = enter_parent(device, &d);
  if (rc != NVML_SUCCESS) return rc;
  if (count == NULL) return fake_leave(NVML_ERROR_INVALID_ARGUMENT);
  *count = d->mig == 1 ? FAKE_MIG_SLOTS : 0;
  return fake_leave(NVML_SUCCESS);
}

FAKE_EXPORT nvmlReturn_t nvmlDeviceGetMigDeviceHandleByIndex(nvmlDevice_t device,
                                                             unsigned int index,
                                                             nvmlDevice_t *migDevice) {
  struct nvmlDevice_st *d;
  nvmlReturn_t rc = enter_parent(device, &d);
  if (rc != NVML_SUCCESS) return rc;
  if (migDevice == NULL) return fake_leave(NVML_ERROR_INVALID_ARGUMENT);
  if (d->mig < 0) return fake_leave(NVML_ERROR_NOT_SUPPORTED);
  if (d->mig == 0 || index >= FAKE_MIG_SLOTS) return fake_leave(NVML_ERROR_INVALID_ARGUMENT);
  struct fake_mig *m = &g_fake.sc.migs[d->index][index];
  if (!m->used) return fake_leave(NVML_ERROR_NOT_FOUND);
  *migDevice = (nvmlDevice_t)m;
  return fake_leave(NVML_SUCCESS);
}

FAKE_EXPORT nvmlReturn_t nvmlDeviceIsMigDeviceHandle(nvmlDevice_t device,
                                                     unsigned int *isMigDevice) {
  nvmlReturn_t rc = fake_enter();
  if (rc != NVML_SUCCESS) return rc;
  if (isMigDevice == NULL) return fake_leave(NVML_ERROR_INVALID_ARGUMENT);
  if (fake_mig_locked(device) != NULL) {
    *isMigDevice = 1;
  } else if (fake_device_locked(device) != NULL) {
    *isMigDevice = 0;
  } else {
    return fake_leave(NVML_ERROR_INVALID_ARGUMENT);
  }
  return fake_leave(NVML_SUCCESS);
}

FAKE_EXPORT nvmlReturn_t nvmlDeviceGetDeviceHandleFromMigDeviceHandle(nvmlDevice_t migDevice,
                                                                      nvmlDevice_t *device) {
  struct fake_mig *m;
  nvmlReturn_t rc = enter_mig(migDevice, &m);
  if (rc != NVML_SUCCESS) return rc;
  if (device == NULL) return fake_leave(NVML_ERROR_INVALID_ARGUMENT);
  *device = &g_fake.sc.gpus[m->gpu];
  return fake_leave(NVML_SUCCESS);
}

FAKE_EXPORT nvmlReturn_t nvmlDeviceGetGpuInstanceId(nvmlDevice_t device, unsigned int *id) {
  struct fake_mig *m;
  nvmlReturn_t rc = enter_mig(device, &m);
  if (rc != NVML_SUCCESS) return rc;
  if (id == NULL) return fake_leave(NVML_ERROR_INVALID_ARGUMENT);
  *id = m->gi;
  return fake_leave(NVML_SUCCESS);
}

FAKE_EXPORT nvmlReturn_t nvmlDeviceGetComputeInstanceId(nvmlDevice_t device, unsigned int *id) {
  struct fake_mig *m;
  nvmlReturn_t rc = enter_mig(device, &m);
  if (rc != NVML_SUCCESS) return rc;
  if (id == NULL) return fake_leave(NVML_ERROR_INVALID_ARGUMENT);
  *id = m->ci;
  return fake_leave(NVML_SUCCESS);
}

FAKE_EXPORT nvmlReturn_t nvmlDeviceGetAttributes_v2(nvmlDevice_t device,
                                                    nvmlDeviceAttributes_t *attributes) {
  struct fake_mig *m;
  /* A peek without counting: the call is counted once, below. */
  pthread_mutex_lock(&g_fake.lock);
  int parent = g_fake.init_count > 0 && fake_device_locked(device) != NULL;
  pthread_mutex_unlock(&g_fake.lock);
  if (parent) {
    fake_count_call();
    return NVML_ERROR_NOT_SUPPORTED; /* "only supports MIG device handles" */
  }
  nvmlReturn_t rc = enter_mig(device, &m);
  if (rc != NVML_SUCCESS) return rc;
  if (attributes == NULL) return fake_leave(NVML_ERROR_INVALID_ARGUMENT);
  const struct fake_mig_profile *p = fake_mig_profile(m->profile);
  memset(attributes, 0, sizeof(*attributes));
  attributes->multiprocessorCount = p->multiprocessors * m->ci_slices / p->slices;
  attributes->sharedCopyEngineCount = p->copy_engines;
  attributes->sharedDecoderCount = p->decoders;
  attributes->sharedEncoderCount = 0;
  attributes->sharedJpegCount = p->jpegs;
  attributes->sharedOfaCount = p->ofas;
  attributes->gpuInstanceSliceCount = p->slices;
  attributes->computeInstanceSliceCount = m->ci_slices;
  attributes->memorySizeMB = p->memory_mib;
  return fake_leave(NVML_SUCCESS);
}

FAKE_EXPORT nvmlReturn_t nvmlDeviceGetGpuInstanceProfileInfo(nvmlDevice_t device,
                                                             unsigned int profile,
                                                             nvmlGpuInstanceProfileInfo_t *info) {
  struct nvmlDevice_st *d;
  nvmlReturn_t rc = enter_parent(device, &d);
  if (rc != NVML_SUCCESS) return rc;
  if (info == NULL || profile >= NVML_GPU_INSTANCE_PROFILE_COUNT) {
    return fake_leave(NVML_ERROR_INVALID_ARGUMENT); /* the end of the enumeration */
  }
  if (d->mig < 0) return fake_leave(NVML_ERROR_NOT_SUPPORTED);
  const struct fake_mig_profile *p = fake_mig_profile(profile);
  if (p == NULL) return fake_leave(NVML_ERROR_NOT_SUPPORTED); /* not on this GPU */
  memset(info, 0, sizeof(*info));
  info->id = p->id;
  info->sliceCount = p->slices;
  info->instanceCount = p->instances;
  info->multiprocessorCount = p->multiprocessors;
  info->copyEngineCount = p->copy_engines;
  info->decoderCount = p->decoders;
  info->jpegCount = p->jpegs;
  info->ofaCount = p->ofas;
  info->memorySizeMB = p->memory_mib;
  return fake_leave(NVML_SUCCESS);
}

/* A GPU-instance handle is the first MIG device of that instance. */
FAKE_EXPORT nvmlReturn_t nvmlDeviceGetGpuInstanceById(nvmlDevice_t device, unsigned int id,
                                                      nvmlGpuInstance_t *gpuInstance) {
  struct nvmlDevice_st *d;
  nvmlReturn_t rc = enter_parent(device, &d);
  if (rc != NVML_SUCCESS) return rc;
  if (gpuInstance == NULL) return fake_leave(NVML_ERROR_INVALID_ARGUMENT);
  if (d->mig < 0) return fake_leave(NVML_ERROR_NOT_SUPPORTED);
  if (!d->mig_monitor) return fake_leave(NVML_ERROR_NO_PERMISSION);
  for (int i = 0; i < FAKE_MIG_SLOTS; i++) {
    struct fake_mig *m = &g_fake.sc.migs[d->index][i];
    if (m->used && m->gi == id) {
      *gpuInstance = (nvmlGpuInstance_t)m;
      return fake_leave(NVML_SUCCESS);
    }
  }
  return fake_leave(NVML_ERROR_NOT_FOUND);
}

FAKE_EXPORT nvmlReturn_t nvmlGpuInstanceGetInfo(nvmlGpuInstance_t gpuInstance,
                                                nvmlGpuInstanceInfo_t *info) {
  struct fake_mig *m;
  nvmlReturn_t rc = enter_mig((nvmlDevice_t)gpuInstance, &m);
  if (rc != NVML_SUCCESS) return rc;
  if (info == NULL) return fake_leave(NVML_ERROR_INVALID_ARGUMENT);
  const struct fake_mig_profile *p = fake_mig_profile(m->profile);
  info->device = &g_fake.sc.gpus[m->gpu];
  info->id = m->gi;
  info->profileId = p->id;
  info->placement.start = m->placement;
  info->placement.size = p->slices;
  return fake_leave(NVML_SUCCESS);
}
#endif /* FAKE_OLD_DRIVER */
