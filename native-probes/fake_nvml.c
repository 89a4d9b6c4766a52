/*
 * acceld's NVML test double: lifecycle, system queries and per-device queries.
 *
 * Behaviour worth knowing when writing tests (it mirrors real NVML where the reference says so):
 *  - Every exported NVML function counts one call (acceld_fake_call_count), even failing ones.
 *  - Before nvmlInit_v2 (and after the final nvmlShutdown) calls return UNINITIALIZED, except
 *    nvmlErrorString, nvmlSystemGetNVMLVersion and nvmlShutdown (extra shutdowns are SUCCESS).
 *  - A lost GPU still yields a handle (it was attached before it fell off the bus) and its PCI
 *    info (the driver caches it, and the agent needs the bus id to report which GPU is lost);
 *    every other per-device call returns GPU_IS_LOST.
 *  - Built with -DFAKE_OLD_DRIVER, the optional symbols of an older driver are not exported.
 *  - Built with -DFAKE_SPARSE, some functions every real driver has are missing too (CPU affinity,
 *    topology, retired pages, power, event sets), as another vendor's partial NVML might be.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fake_nvml_internal.h"

struct fake_global g_fake = {
    .lock = PTHREAD_MUTEX_INITIALIZER,
    .lifecycle = PTHREAD_MUTEX_INITIALIZER,
};

static unsigned long long g_calls;

void fake_count_call(void) { __atomic_add_fetch(&g_calls, 1, __ATOMIC_RELAXED); }

FAKE_EXPORT unsigned long long acceld_fake_call_count(void) {
  return __atomic_load_n(&g_calls, __ATOMIC_RELAXED);
}

/* Event waits use absolute CLOCK_MONOTONIC deadlines, so the condvar needs that clock. */
__attribute__((constructor)) static void fake_constructor(void) {
  pthread_condattr_t attr;
  pthread_condattr_init(&attr);
  pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
  pthread_cond_init(&g_fake.changed, &attr);
  pthread_condattr_destroy(&attr);
  g_fake.cond_ready = 1;
}

/* Final shutdown; caller holds lifecycle (not lock). */
static void fake_full_shutdown(void) {
  pthread_mutex_lock(&g_fake.lock);
  g_fake.init_count = 0;
  fake_free_all_sets_locked();
  g_fake.fail_waits_left = 0;
  pthread_cond_broadcast(&g_fake.changed);
  pthread_mutex_unlock(&g_fake.lock);
  fake_control_stop();
}

/*
 * dlclose of a still-initialised copy (JNA disposes libraries it no longer references):
 * stop the control thread so it never executes unmapped code.
 */
__attribute__((destructor)) static void fake_destructor(void) {
  pthread_mutex_lock(&g_fake.lifecycle);
  if (g_fake.init_count > 0) fake_full_shutdown();
  pthread_mutex_unlock(&g_fake.lifecycle);
}

/* ---------------------------------------------------------------- helpers */

nvmlReturn_t fake_enter(void) {
  fake_count_call();
  pthread_mutex_lock(&g_fake.lock);
  if (g_fake.init_count == 0) {
    pthread_mutex_unlock(&g_fake.lock);
    return NVML_ERROR_UNINITIALIZED;
  }
  return NVML_SUCCESS;
}

nvmlReturn_t fake_leave(nvmlReturn_t rc) {
  pthread_mutex_unlock(&g_fake.lock);
  return rc;
}

/* Handles point into g_fake.sc.gpus; anything else (stale, garbage) is INVALID_ARGUMENT. */
struct nvmlDevice_st *fake_device_locked(nvmlDevice_t handle) {
  uintptr_t p = (uintptr_t)handle;
  uintptr_t base = (uintptr_t)&g_fake.sc.gpus[0];
  uintptr_t end = (uintptr_t)&g_fake.sc.gpus[g_fake.sc.gpu_count];
  if (p < base || p >= end || (p - base) % sizeof(struct nvmlDevice_st) != 0) return NULL;
  return handle;
}

nvmlReturn_t fake_enter_device(nvmlDevice_t handle, struct nvmlDevice_st **out, int fail_if_lost) {
  nvmlReturn_t rc = fake_enter();
  if (rc != NVML_SUCCESS) return rc;
  struct nvmlDevice_st *d = fake_device_locked(handle);
  if (d == NULL) return fake_leave(NVML_ERROR_INVALID_ARGUMENT);
  /* A wedged GPU: the call blocks (the lock is released while it waits) until unhung or shut down. */
  while (d->hung && g_fake.init_count > 0) pthread_cond_wait(&g_fake.changed, &g_fake.lock);
  if (g_fake.init_count == 0) return fake_leave(NVML_ERROR_UNINITIALIZED);
  if (fail_if_lost && d->lost) return fake_leave(NVML_ERROR_GPU_IS_LOST);
  *out = d;
  return NVML_SUCCESS;
}

static nvmlReturn_t copy_string(char *dst, unsigned int length, const char *src) {
  if (dst == NULL) return NVML_ERROR_INVALID_ARGUMENT;
  if (strlen(src) + 1 > length) return NVML_ERROR_INSUFFICIENT_SIZE;
  memcpy(dst, src, strlen(src) + 1);
  return NVML_SUCCESS;
}

static void fill_pci(const struct nvmlDevice_st *d, nvmlPciInfo_t *pci) {
  memset(pci, 0, sizeof(*pci));
  pci->domain = d->domain;
  pci->bus = d->bus;
  pci->device = d->device;
  pci->pciDeviceId = d->pci_device_id;
  pci->pciSubSystemId = d->pci_device_id;
  snprintf(pci->busIdLegacy, sizeof(pci->busIdLegacy), "%04X:%02X:%02X.0", d->domain & 0xffffu,
           d->bus & 0xffu, d->device & 0x1fu);
  snprintf(pci->busId, sizeof(pci->busId), "%08X:%02X:%02X.0", d->domain, d->bus & 0xffu,
           d->device & 0x1fu);
}

/* ---------------------------------------------------------------- lifecycle */

static nvmlReturn_t fake_init(void) {
  nvmlReturn_t rc = NVML_SUCCESS;
  pthread_mutex_lock(&g_fake.lifecycle);
  pthread_mutex_lock(&g_fake.lock);
  if (g_fake.init_count > 0) {
    g_fake.init_count++;
    pthread_mutex_unlock(&g_fake.lock);
  } else {
    /* First init (or first after a full shutdown): (re-)read the scenario. */
    char path[FAKE_PATH_MAX];
    fake_scenario_path(path, sizeof(path));
    fake_scenario_load(&g_fake.sc, path);
    rc = g_fake.sc.init_error;
    if (rc == NVML_SUCCESS) {
      g_fake.init_count = 1;
      g_fake.fail_waits_left = 0;
    } else {
      g_fake.sc.gpu_count = 0;
    }
    pthread_mutex_unlock(&g_fake.lock);
    if (rc == NVML_SUCCESS) fake_control_start(path);
  }
  pthread_mutex_unlock(&g_fake.lifecycle);
  return rc;
}

FAKE_EXPORT nvmlReturn_t nvmlInit_v2(void) {
  fake_count_call();
  return fake_init();
}

FAKE_EXPORT nvmlReturn_t nvmlInitWithFlags(unsigned int flags) {
  (void)flags; /* NO_GPUS etc.: the double always initialises, even with zero GPUs */
  fake_count_call();
  return fake_init();
}

FAKE_EXPORT nvmlReturn_t nvmlShutdown(void) {
  fake_count_call();
  pthread_mutex_lock(&g_fake.lifecycle);
  pthread_mutex_lock(&g_fake.lock);
  unsigned int count = g_fake.init_count;
  if (count > 1) g_fake.init_count--;
  pthread_mutex_unlock(&g_fake.lock);
  /* More shutdowns than inits are not an error (NVML docs). */
  if (count == 1) fake_full_shutdown();
  pthread_mutex_unlock(&g_fake.lifecycle);
  return NVML_SUCCESS;
}

FAKE_EXPORT const char *nvmlErrorString(nvmlReturn_t result) {
  fake_count_call();
  switch (result) {
    case NVML_SUCCESS: return "Success";
    case NVML_ERROR_UNINITIALIZED: return "Uninitialized";
    case NVML_ERROR_INVALID_ARGUMENT: return "Invalid Argument";
    case NVML_ERROR_NOT_SUPPORTED: return "Not Supported";
    case NVML_ERROR_NO_PERMISSION: return "Insufficient Permissions";
    case NVML_ERROR_ALREADY_INITIALIZED: return "Already Initialized";
    case NVML_ERROR_NOT_FOUND: return "Not Found";
    case NVML_ERROR_INSUFFICIENT_SIZE: return "Insufficient Size";
    case NVML_ERROR_INSUFFICIENT_POWER: return "Insufficient External Power";
    case NVML_ERROR_DRIVER_NOT_LOADED: return "Driver Not Loaded";
    case NVML_ERROR_TIMEOUT: return "Timeout";
    case NVML_ERROR_IRQ_ISSUE: return "Interrupt Request Issue";
    case NVML_ERROR_LIBRARY_NOT_FOUND: return "NVML Shared Library Not Found";
    case NVML_ERROR_FUNCTION_NOT_FOUND: return "Function Not Found";
    case NVML_ERROR_CORRUPTED_INFOROM: return "Corrupted infoROM";
    case NVML_ERROR_GPU_IS_LOST: return "GPU is lost";
    case NVML_ERROR_RESET_REQUIRED: return "GPU requires restart";
    case NVML_ERROR_OPERATING_SYSTEM: return "The operating system has blocked the request";
    case NVML_ERROR_LIB_RM_VERSION_MISMATCH: return "RM has detected an NVML/RM version mismatch";
    case NVML_ERROR_IN_USE: return "In use by another client";
    case NVML_ERROR_MEMORY: return "Insufficient Memory";
    case NVML_ERROR_NO_DATA: return "No data";
    case NVML_ERROR_ARGUMENT_VERSION_MISMATCH: return "Argument version mismatch";
    case NVML_ERROR_NOT_READY: return "Not ready";
    default: return "Unknown Error";
  }
}

/* ---------------------------------------------------------------- system */

FAKE_EXPORT nvmlReturn_t nvmlSystemGetDriverVersion(char *version, unsigned int length) {
  nvmlReturn_t rc = fake_enter();
  if (rc != NVML_SUCCESS) return rc;
  return fake_leave(copy_string(version, length, g_fake.sc.driver));
}

/* Callable before init, like the real one; "13.<driver>" once initialised. */
FAKE_EXPORT nvmlReturn_t nvmlSystemGetNVMLVersion(char *version, unsigned int length) {
  char buf[NVML_SYSTEM_NVML_VERSION_BUFFER_SIZE + 8];
  fake_count_call();
  pthread_mutex_lock(&g_fake.lock);
  snprintf(buf, sizeof(buf), "13.%s", g_fake.init_count > 0 ? g_fake.sc.driver : "0");
  pthread_mutex_unlock(&g_fake.lock);
  return copy_string(version, length, buf);
}

static nvmlReturn_t cuda_version(int *out) {
  nvmlReturn_t rc = fake_enter();
  if (rc != NVML_SUCCESS) return rc;
  if (out == NULL) return fake_leave(NVML_ERROR_INVALID_ARGUMENT);
  if (g_fake.sc.cuda <= 0) return fake_leave(NVML_ERROR_LIBRARY_NOT_FOUND); /* no libcuda */
  *out = g_fake.sc.cuda;
  return fake_leave(NVML_SUCCESS);
}

FAKE_EXPORT nvmlReturn_t nvmlSystemGetCudaDriverVersion(int *cudaDriverVersion) {
  return cuda_version(cudaDriverVersion);
}

#ifndef FAKE_OLD_DRIVER
FAKE_EXPORT nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int *cudaDriverVersion) {
  return cuda_version(cudaDriverVersion);
}
#endif

/* ---------------------------------------------------------------- enumeration, identity */

FAKE_EXPORT nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *deviceCount) {
  nvmlReturn_t rc = fake_enter();
  if (rc != NVML_SUCCESS) return rc;
  if (deviceCount == NULL) return fake_leave(NVML_ERROR_INVALID_ARGUMENT);
  *deviceCount = g_fake.sc.gpu_count;
  return fake_leave(NVML_SUCCESS);
}

FAKE_EXPORT nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *device) {
  nvmlReturn_t rc = fake_enter();
  if (rc != NVML_SUCCESS) return rc;
  if (device == NULL || index >= g_fake.sc.gpu_count) {
    return fake_leave(NVML_ERROR_INVALID_ARGUMENT);
  }
  *device = &g_fake.sc.gpus[index];
  return fake_leave(NVML_SUCCESS);
}

/* Accepts the documented forms: domain:bus:device.function, domain:bus:device, bus:device.function. */
static int parse_bus_id(const char *s, unsigned int *domain, unsigned int *bus, unsigned int *dev) {
  unsigned int a, b, c, fn;
  int n = 0;
  size_t len = strlen(s);
  if (sscanf(s, "%x:%x:%x.%x%n", &a, &b, &c, &fn, &n) == 4 && (size_t)n == len) {
    *domain = a, *bus = b, *dev = c;
    return 1;
  }
  n = 0;
  if (sscanf(s, "%x:%x:%x%n", &a, &b, &c, &n) == 3 && (size_t)n == len) {
    *domain = a, *bus = b, *dev = c;
    return 1;
  }
  n = 0;
  if (sscanf(s, "%x:%x.%x%n", &b, &c, &fn, &n) == 3 && (size_t)n == len) {
    *domain = 0, *bus = b, *dev = c;
    return 1;
  }
  return 0;
}

FAKE_EXPORT nvmlReturn_t nvmlDeviceGetHandleByPciBusId_v2(const char *pciBusId,
                                                          nvmlDevice_t *device) {
  unsigned int domain, bus, dev;
  nvmlReturn_t rc = fake_enter();
  if (rc != NVML_SUCCESS) return rc;
  if (pciBusId == NULL || device == NULL || !parse_bus_id(pciBusId, &domain, &bus, &dev)) {
    return fake_leave(NVML_ERROR_INVALID_ARGUMENT);
  }
  for (unsigned int i = 0; i < g_fake.sc.gpu_count; i++) {
    struct nvmlDevice_st *d = &g_fake.sc.gpus[i];
    if (d->domain == domain && d->bus == bus && d->device == dev) {
      *device = d;
      return fake_leave(NVML_SUCCESS);
    }
  }
  return fake_leave(NVML_ERROR_NOT_FOUND);
}

FAKE_EXPORT nvmlReturn_t nvmlDeviceGetHandleByUUID(const char *uuid, nvmlDevice_t *device) {
  nvmlReturn_t rc = fake_enter();
  if (rc != NVML_SUCCESS) return rc;
  if (uuid == NULL || device == NULL) return fake_leave(NVML_ERROR_INVALID_ARGUMENT);
  for (unsigned int i = 0; i < g_fake.sc.gpu_count; i++) {
    if (strcmp(g_fake.sc.gpus[i].uuid, uuid) == 0) {
      *device = &g_fake.sc.gpus[i];
      return fake_leave(NVML_SUCCESS);
    }
    for (unsigned int k = 0; k < FAKE_MIG_SLOTS; k++) {
      struct fake_mig *m = &g_fake.sc.migs[i][k];
      if (m->used && strcmp(m->uuid, uuid) == 0) {
        *device = (nvmlDevice_t)m; /* R470+: MIG UUIDs resolve to MIG handles */
        return fake_leave(NVML_SUCCESS);
      }
    }
  }
  return fake_leave(NVML_ERROR_NOT_FOUND);
}

/*
 * The calls that answer for MIG handles too. On the lock, either *gpu (a whole GPU) or *mig (a MIG
 * device, whose parent's hang and loss apply) is set.
 */
static nvmlReturn_t enter_any(nvmlDevice_t device, struct nvmlDevice_st **gpu,
                              struct fake_mig **mig) {
  /* A peek without counting: the call is counted once, by fake_enter_device below. */
  pthread_mutex_lock(&g_fake.lock);
  struct fake_mig *m = g_fake.init_count > 0 ? fake_mig_locked(device) : NULL;
  pthread_mutex_unlock(&g_fake.lock);
  *gpu = NULL;
  *mig = NULL;
  if (m == NULL) return fake_enter_device(device, gpu, 1);
  nvmlReturn_t rc = fake_enter_device(&g_fake.sc.gpus[m->gpu], gpu, 1);
  if (rc != NVML_SUCCESS) return rc;
  *gpu = NULL;
  m = fake_mig_locked(device);
  if (m == NULL) return fake_leave(NVML_ERROR_INVALID_ARGUMENT); /* destroyed meanwhile */
  *mig = m;
  return NVML_SUCCESS;
}

FAKE_EXPORT nvmlReturn_t nvmlDeviceGetIndex(nvmlDevice_t device, unsigned int *index) {
  struct nvmlDevice_st *d;
  struct fake_mig *m;
  nvmlReturn_t rc = enter_any(device, &d, &m);
  if (rc != NVML_SUCCESS) return rc;
  if (index == NULL) return fake_leave(NVML_ERROR_INVALID_ARGUMENT);
  if (m != NULL) {
    *index = (unsigned int)(m - g_fake.sc.migs[m->gpu]); /* the MIG index */
    return fake_leave(NVML_SUCCESS);
  }
  *index = d->index;
  return fake_leave(NVML_SUCCESS);
}

FAKE_EXPORT nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char *uuid, unsigned int length) {
  struct nvmlDevice_st *d;
  struct fake_mig *m;
  nvmlReturn_t rc = enter_any(device, &d, &m);
  if (rc != NVML_SUCCESS) return rc;
  return fake_leave(copy_string(uuid, length, m != NULL ? m->uuid : d->uuid));
}

FAKE_EXPORT nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char *name, unsigned int length) {
  struct nvmlDevice_st *d;
  struct fake_mig *m;
  nvmlReturn_t rc = enter_any(device, &d, &m);
  if (rc != NVML_SUCCESS) return rc;
  if (m != NULL) {
    char mig_name[NVML_DEVICE_NAME_V2_BUFFER_SIZE + 16];
    snprintf(mig_name, sizeof(mig_name), "%s MIG %s", g_fake.sc.gpus[m->gpu].name,
             fake_mig_profile(m->profile)->name);
    return fake_leave(copy_string(name, length, mig_name));
  }
  return fake_leave(copy_string(name, length, d->name));
}

FAKE_EXPORT nvmlReturn_t nvmlDeviceGetMinorNumber(nvmlDevice_t device, unsigned int *minorNumber) {
  struct nvmlDevice_st *d;
  nvmlReturn_t rc = fake_enter_device(device, &d, 1);
  if (rc != NVML_SUCCESS) return rc;
  if (minorNumber == NULL) return fake_leave(NVML_ERROR_INVALID_ARGUMENT);
  *minorNumber = d->minor;
  return fake_leave(NVML_SUCCESS);
}

FAKE_EXPORT nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t device, nvmlPciInfo_t *pci) {
  struct nvmlDevice_st *d;
  nvmlReturn_t rc = fake_enter_device(device, &d, 0 /* cached: readable on a lost GPU */);
  if (rc != NVML_SUCCESS) return rc;
  if (pci == NULL) return fake_leave(NVML_ERROR_INVALID_ARGUMENT);
  fill_pci(d, pci);
  return fake_leave(NVML_SUCCESS);
}

#ifndef FAKE_OLD_DRIVER
FAKE_EXPORT nvmlReturn_t nvmlDeviceGetCudaComputeCapability(nvmlDevice_t device, int *major,
                                                            int *minor) {
  struct nvmlDevice_st *d;
  nvmlReturn_t rc = fake_enter_device(device, &d, 1);
  if (rc != NVML_SUCCESS) return rc;
  if (major == NULL || minor == NULL) return fake_leave(NVML_ERROR_INVALID_ARGUMENT);
  if (d->cc_major < 0) return fake_leave(NVML_ERROR_NOT_SUPPORTED);
  *major = d->cc_major;
  *minor = d->cc_minor;
  return fake_leave(NVML_SUCCESS);
}

FAKE_EXPORT nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t device, unsigned int *currentMode,
                                              unsigned int *pendingMode) {
  struct nvmlDevice_st *d;
  nvmlReturn_t rc = fake_enter_device(device, &d, 1);
  if (rc != NVML_SUCCESS) return rc;
  if (currentMode == NULL || pendingMode == NULL) return fake_leave(NVML_ERROR_INVALID_ARGUMENT);
  if (d->mig < 0) return fake_leave(NVML_ERROR_NOT_SUPPORTED);
  *currentMode = (unsigned int)d->mig;
  *pendingMode = (unsigned int)d->mig_pending;
  return fake_leave(NVML_SUCCESS);
}
#endif

/* ---------------------------------------------------------------- memory, telemetry */

/*
 * Memory of a whole GPU or of a MIG device; a MIG-enabled parent's aggregate needs the MIG monitor
 * capability (else NO_PERMISSION, the incumbent's "Insufficient Permissions").
 */
static nvmlReturn_t memory_of(nvmlDevice_t device, unsigned long long *total,
                              unsigned long long *used) {
  struct nvmlDevice_st *d;
  struct fake_mig *m;
  nvmlReturn_t rc = enter_any(device, &d, &m);
  if (rc != NVML_SUCCESS) return rc;
  if (m != NULL) {
    *total = fake_mig_profile(m->profile)->memory_mib << 20;
    *used = m->memory_used;
  } else if (d->mig == 1 && !d->mig_monitor) {
    return fake_leave(NVML_ERROR_NO_PERMISSION);
  } else {
    *total = d->memory_total;
    *used = d->memory_used;
  }
  return NVML_SUCCESS; /* lock still held */
}

FAKE_EXPORT nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t *memory) {
  unsigned long long total, used;
  nvmlReturn_t rc = memory_of(device, &total, &used);
  if (rc != NVML_SUCCESS) return rc;
  if (memory == NULL) return fake_leave(NVML_ERROR_INVALID_ARGUMENT);
  memory->total = total;
  memory->used = used;
  memory->free = total - used;
  return fake_leave(NVML_SUCCESS);
}

#ifndef FAKE_OLD_DRIVER
FAKE_EXPORT nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t device, nvmlMemory_v2_t *memory) {
  unsigned long long total, used;
  nvmlReturn_t rc = memory_of(device, &total, &used);
  if (rc != NVML_SUCCESS) return rc;
  if (memory == NULL) return fake_leave(NVML_ERROR_INVALID_ARGUMENT);
  /* Catches a caller that forgets version = (2 << 24) | sizeof. */
  if (memory->version != nvmlMemory_v2) return fake_leave(NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
  memory->total = total;
  memory->reserved = 0;
  memory->used = used;
  memory->free = total - used;
  return fake_leave(NVML_SUCCESS);
}
#endif

FAKE_EXPORT nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t device,
                                                  nvmlTemperatureSensors_t sensorType,
                                                  unsigned int *temp) {
  struct nvmlDevice_st *d;
  nvmlReturn_t rc = fake_enter_device(device, &d, 1);
  if (rc != NVML_SUCCESS) return rc;
  if (temp == NULL || sensorType != NVML_TEMPERATURE_GPU) {
    return fake_leave(NVML_ERROR_INVALID_ARGUMENT);
  }
  if (d->temperature < 0) return fake_leave(NVML_ERROR_NOT_SUPPORTED);
  *temp = (unsigned int)d->temperature;
  return fake_leave(NVML_SUCCESS);
}

#ifndef FAKE_SPARSE /* absent from the "foreign NVML" variant */
FAKE_EXPORT nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t device, unsigned int *power) {
  struct nvmlDevice_st *d;
  nvmlReturn_t rc = fake_enter_device(device, &d, 1);
  if (rc != NVML_SUCCESS) return rc;
  if (power == NULL) return fake_leave(NVML_ERROR_INVALID_ARGUMENT);
  if (d->power_mw < 0) return fake_leave(NVML_ERROR_NOT_SUPPORTED);
  *power = (unsigned int)d->power_mw;
  return fake_leave(NVML_SUCCESS);
}
#endif

FAKE_EXPORT nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t device,
                                                       nvmlUtilization_t *utilization) {
  struct nvmlDevice_st *d;
  nvmlReturn_t rc = fake_enter_device(device, &d, 1);
  if (rc != NVML_SUCCESS) return rc;
  if (utilization == NULL) return fake_leave(NVML_ERROR_INVALID_ARGUMENT);
  /* Real NVML: NOT_SUPPORTED on MIG-enabled GPUs. */
  if (d->util_gpu < 0 || d->mig == 1) return fake_leave(NVML_ERROR_NOT_SUPPORTED);
  utilization->gpu = (unsigned int)d->util_gpu;
  utilization->memory = (unsigned int)d->util_mem;
  return fake_leave(NVML_SUCCESS);
}

FAKE_EXPORT nvmlReturn_t nvmlDeviceGetTotalEccErrors(nvmlDevice_t device,
                                                     nvmlMemoryErrorType_t errorType,
                                                     nvmlEccCounterType_t counterType,
                                                     unsigned long long *eccCounts) {
  struct nvmlDevice_st *d;
  nvmlReturn_t rc = fake_enter_device(device, &d, 1);
  if (rc != NVML_SUCCESS) return rc;
  if (eccCounts == NULL || (errorType != NVML_MEMORY_ERROR_TYPE_CORRECTED &&
                            errorType != NVML_MEMORY_ERROR_TYPE_UNCORRECTED) ||
      (counterType != NVML_VOLATILE_ECC && counterType != NVML_AGGREGATE_ECC)) {
    return fake_leave(NVML_ERROR_INVALID_ARGUMENT);
  }
  if (!d->ecc) return fake_leave(NVML_ERROR_NOT_SUPPORTED);
  /* The double has no driver reloads, so volatile and aggregate counters are the same. */
  *eccCounts = errorType == NVML_MEMORY_ERROR_TYPE_CORRECTED ? d->ecc_corrected
                                                             : d->ecc_uncorrected;
  return fake_leave(NVML_SUCCESS);
}

FAKE_EXPORT nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t device, nvmlClockType_t type,
                                                unsigned int *clock) {
  struct nvmlDevice_st *d;
  nvmlReturn_t rc = fake_enter_device(device, &d, 1);
  if (rc != NVML_SUCCESS) return rc;
  if (clock == NULL || type < NVML_CLOCK_GRAPHICS || type > NVML_CLOCK_VIDEO) {
    return fake_leave(NVML_ERROR_INVALID_ARGUMENT);
  }
  /* The double models the two clocks dcgm-exporter exports; graphics follows SM as on real GPUs. */
  long mhz = type == NVML_CLOCK_MEM ? d->mem_clock_mhz
             : type == NVML_CLOCK_VIDEO ? -1
                                        : d->sm_clock_mhz;
  if (mhz < 0) return fake_leave(NVML_ERROR_NOT_SUPPORTED);
  *clock = (unsigned int)mhz;
  return fake_leave(NVML_SUCCESS);
}

FAKE_EXPORT nvmlReturn_t nvmlDeviceGetTotalEnergyConsumption(nvmlDevice_t device,
                                                             unsigned long long *energy) {
  struct nvmlDevice_st *d;
  nvmlReturn_t rc = fake_enter_device(device, &d, 1);
  if (rc != NVML_SUCCESS) return rc;
  if (energy == NULL) return fake_leave(NVML_ERROR_INVALID_ARGUMENT);
  if (d->energy_mj < 0) return fake_leave(NVML_ERROR_NOT_SUPPORTED);
  *energy = (unsigned long long)d->energy_mj;
  return fake_leave(NVML_SUCCESS);
}

FAKE_EXPORT nvmlReturn_t nvmlDeviceGetPcieReplayCounter(nvmlDevice_t device, unsigned int *value) {
  struct nvmlDevice_st *d;
  nvmlReturn_t rc = fake_enter_device(device, &d, 1);
  if (rc != NVML_SUCCESS) return rc;
  if (value == NULL) return fake_leave(NVML_ERROR_INVALID_ARGUMENT);
  if (d->pcie_replays < 0) return fake_leave(NVML_ERROR_NOT_SUPPORTED);
  *value = (unsigned int)d->pcie_replays;
  return fake_leave(NVML_SUCCESS);
}

static nvmlReturn_t codec_utilization(nvmlDevice_t device, int encoder, unsigned int *utilization,
                                      unsigned int *samplingPeriodUs) {
  struct nvmlDevice_st *d;
  nvmlReturn_t rc = fake_enter_device(device, &d, 1);
  if (rc != NVML_SUCCESS) return rc;
  if (utilization == NULL || samplingPeriodUs == NULL) {
    return fake_leave(NVML_ERROR_INVALID_ARGUMENT);
  }
  int pct = encoder ? d->enc_util : d->dec_util;
  /* Real NVML: not on MIG-enabled GPUs. */
  if (pct < 0 || d->mig == 1) return fake_leave(NVML_ERROR_NOT_SUPPORTED);
  *utilization = (unsigned int)pct;
  *samplingPeriodUs = 167000;
  return fake_leave(NVML_SUCCESS);
}

FAKE_EXPORT nvmlReturn_t nvmlDeviceGetEncoderUtilization(nvmlDevice_t device,
                                                         unsigned int *utilization,
                                                         unsigned int *samplingPeriodUs) {
  return codec_utilization(device, 1, utilization, samplingPeriodUs);
}

FAKE_EXPORT nvmlReturn_t nvmlDeviceGetDecoderUtilization(nvmlDevice_t device,
                                                         unsigned int *utilization,
                                                         unsigned int *samplingPeriodUs) {
  return codec_utilization(device, 0, utilization, samplingPeriodUs);
}

/* One field of nvmlDeviceGetFieldValues; unknown IDs are NOT_SUPPORTED, as real NVML answers
 * for fields the GPU lacks. */
static void field_value(const struct nvmlDevice_st *d, nvmlFieldValue_t *v) {
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  v->timestamp = (long long)now.tv_sec * 1000000LL + now.tv_nsec / 1000;
  v->latencyUsec = 0;
  long long value = -1;
  int nvlink = -1;
  switch (v->fieldId) {
    case NVML_FI_DEV_MEMORY_TEMP:
      value = d->memory_temp;
      break;
    case NVML_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL: nvlink = 0; break;
    case NVML_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_TOTAL: nvlink = 1; break;
    case NVML_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL: nvlink = 2; break;
    case NVML_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL: nvlink = 3; break;
    default:
      break;
  }
  if (nvlink >= 0) value = d->nvlink_errors[nvlink];
  if (value < 0) {
    v->nvmlReturn = NVML_ERROR_NOT_SUPPORTED;
    return;
  }
  v->nvmlReturn = NVML_SUCCESS;
  if (nvlink >= 0) {
    v->valueType = NVML_VALUE_TYPE_UNSIGNED_LONG_LONG;
    v->value.ullVal = (unsigned long long)value;
  } else {
    v->valueType = NVML_VALUE_TYPE_UNSIGNED_INT;
    v->value.uiVal = (unsigned int)value;
  }
}

FAKE_EXPORT nvmlReturn_t nvmlDeviceGetFieldValues(nvmlDevice_t device, int valuesCount,
                                                  nvmlFieldValue_t *values) {
  struct nvmlDevice_st *d;
  nvmlReturn_t rc = fake_enter_device(device, &d, 1);
  if (rc != NVML_SUCCESS) return rc;
  if (values == NULL || valuesCount <= 0) return fake_leave(NVML_ERROR_INVALID_ARGUMENT);
  for (int i = 0; i < valuesCount; i++) field_value(d, &values[i]);
  return fake_leave(NVML_SUCCESS);
}

#ifndef FAKE_OLD_DRIVER /* row remapping arrived with Ampere-era drivers */
FAKE_EXPORT nvmlReturn_t nvmlDeviceGetRemappedRows(nvmlDevice_t device, unsigned int *corrRows,
                                                   unsigned int *uncRows, unsigned int *isPending,
                                                   unsigned int *failureOccurred) {
  struct nvmlDevice_st *d;
  nvmlReturn_t rc = fake_enter_device(device, &d, 1);
  if (rc != NVML_SUCCESS) return rc;
  if (corrRows == NULL || uncRows == NULL || isPending == NULL || failureOccurred == NULL) {
    return fake_leave(NVML_ERROR_INVALID_ARGUMENT);
  }
  /* Real NVML: NOT_SUPPORTED before Ampere and with active MIG instances. */
  if (d->remap_corr < 0 || d->mig == 1) return fake_leave(NVML_ERROR_NOT_SUPPORTED);
  *corrRows = (unsigned int)d->remap_corr;
  *uncRows = (unsigned int)d->remap_unc;
  *isPending = (unsigned int)d->remap_pending;
  *failureOccurred = (unsigned int)d->remap_failure;
  return fake_leave(NVML_SUCCESS);
}
#endif

#ifndef FAKE_SPARSE /* absent from the "foreign NVML" variant */
FAKE_EXPORT nvmlReturn_t nvmlDeviceGetRetiredPagesPendingStatus(nvmlDevice_t device,
                                                                nvmlEnableState_t *isPending) {
  struct nvmlDevice_st *d;
  nvmlReturn_t rc = fake_enter_device(device, &d, 1);
  if (rc != NVML_SUCCESS) return rc;
  if (isPending == NULL) return fake_leave(NVML_ERROR_INVALID_ARGUMENT);
  if (!d->ecc) return fake_leave(NVML_ERROR_NOT_SUPPORTED);
  *isPending = d->retired_pending ? NVML_FEATURE_ENABLED : NVML_FEATURE_DISABLED;
  return fake_leave(NVML_SUCCESS);
}
#endif

/* ---------------------------------------------------------------- topology, affinity, NVLink */

#ifndef FAKE_SPARSE /* absent from the "foreign NVML" variant */
FAKE_EXPORT nvmlReturn_t nvmlDeviceGetCpuAffinity(nvmlDevice_t device, unsigned int cpuSetSize,
                                                  unsigned long *cpuSet) {
  struct nvmlDevice_st *d;
  nvmlReturn_t rc = fake_enter_device(device, &d, 1);
  if (rc != NVML_SUCCESS) return rc;
  if (cpuSet == NULL || cpuSetSize == 0) return fake_leave(NVML_ERROR_INVALID_ARGUMENT);
  for (unsigned int w = 0; w < cpuSetSize; w++) {
    cpuSet[w] = w < (unsigned int)FAKE_CPU_WORDS ? d->cpus[w] : 0;
  }
  return fake_leave(NVML_SUCCESS);
}
#endif

#ifndef FAKE_SPARSE /* absent from the "foreign NVML" variant */
FAKE_EXPORT nvmlReturn_t nvmlDeviceGetTopologyCommonAncestor(nvmlDevice_t device1,
                                                             nvmlDevice_t device2,
                                                             nvmlGpuTopologyLevel_t *pathInfo) {
  nvmlReturn_t rc = fake_enter();
  if (rc != NVML_SUCCESS) return rc;
  struct nvmlDevice_st *a = fake_device_locked(device1);
  struct nvmlDevice_st *b = fake_device_locked(device2);
  if (a == NULL || b == NULL || pathInfo == NULL) return fake_leave(NVML_ERROR_INVALID_ARGUMENT);
  if (a->lost || b->lost) return fake_leave(NVML_ERROR_GPU_IS_LOST);
  if (a == b) {
    *pathInfo = NVML_TOPOLOGY_INTERNAL;
  } else if (g_fake.sc.topo[a->index][b->index] != FAKE_TOPO_UNSET) {
    *pathInfo = g_fake.sc.topo[a->index][b->index] - 1;
  } else {
    *pathInfo = a->numa == b->numa ? NVML_TOPOLOGY_NODE : NVML_TOPOLOGY_SYSTEM;
  }
  return fake_leave(NVML_SUCCESS);
}
#endif

#ifndef FAKE_OLD_DRIVER
/* Links 0..link_count-1 are ENABLED; beyond: NOT_SUPPORTED below NVML_NVLINK_MAX_LINKS, else
 * INVALID_ARGUMENT, which is what an agent looping to 36 sees on real hardware. */
static nvmlReturn_t check_link(const struct nvmlDevice_st *d, unsigned int link) {
  if (link >= NVML_NVLINK_MAX_LINKS) return NVML_ERROR_INVALID_ARGUMENT;
  if (link >= (unsigned int)d->link_count) return NVML_ERROR_NOT_SUPPORTED;
  return NVML_SUCCESS;
}

FAKE_EXPORT nvmlReturn_t nvmlDeviceGetNvLinkState(nvmlDevice_t device, unsigned int link,
                                                  nvmlEnableState_t *isActive) {
  struct nvmlDevice_st *d;
  nvmlReturn_t rc = fake_enter_device(device, &d, 1);
  if (rc != NVML_SUCCESS) return rc;
  if (isActive == NULL) return fake_leave(NVML_ERROR_INVALID_ARGUMENT);
  rc = check_link(d, link);
  if (rc == NVML_SUCCESS) *isActive = NVML_FEATURE_ENABLED;
  return fake_leave(rc);
}

FAKE_EXPORT nvmlReturn_t nvmlDeviceGetNvLinkRemotePciInfo_v2(nvmlDevice_t device,
                                                             unsigned int link,
                                                             nvmlPciInfo_t *pci) {
  struct nvmlDevice_st *d;
  nvmlReturn_t rc = fake_enter_device(device, &d, 1);
  if (rc != NVML_SUCCESS) return rc;
  if (pci == NULL) return fake_leave(NVML_ERROR_INVALID_ARGUMENT);
  rc = check_link(d, link);
  if (rc == NVML_SUCCESS) fill_pci(&g_fake.sc.gpus[d->link_remote[link]], pci);
  return fake_leave(rc);
}
#endif
