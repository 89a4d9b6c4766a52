/*
 * Internal state of acceld's NVML test double (not part of any NVML API).
 *
 * Locking: one global mutex (g_fake.lock) guards everything below except the call counter
 * (atomic) and the init refcount transitions, which are additionally serialised by
 * g_fake.lifecycle so that a final nvmlShutdown can join the control thread without holding
 * the state lock.
 */
#ifndef ACCELD_FAKE_NVML_INTERNAL_H
#define ACCELD_FAKE_NVML_INTERNAL_H

#include <pthread.h>

#include "nvml_types.h"

/* Only NVML entry points and the acceld_fake_* controls are exported; helpers stay hidden. */
#define FAKE_EXPORT __attribute__((visibility("default")))

#define FAKE_MAX_GPUS 256
#define FAKE_MAX_CPUS 4096
#define FAKE_CPU_WORDS (FAKE_MAX_CPUS / (8 * (int)sizeof(unsigned long)))
#define FAKE_QUEUE_CAPACITY 1024
#define FAKE_PATH_MAX 4096
/* topo[][] holds level + 1; 0 (what a zeroed scenario holds) = derive from NUMA. */
#define FAKE_TOPO_UNSET 0

/* What the double knows about one GPU. Handles given to callers point at these. */
struct nvmlDevice_st {
  unsigned int index;
  char uuid[NVML_DEVICE_UUID_V2_BUFFER_SIZE];
  char name[NVML_DEVICE_NAME_V2_BUFFER_SIZE];
  unsigned int domain, bus, device;
  unsigned int pci_device_id;
  unsigned int minor;
  unsigned long long memory_total;
  unsigned long long memory_used;
  int numa;
  unsigned long cpus[FAKE_CPU_WORDS];
  int mig;            /* current MIG mode: 0, 1, or -1 = NOT_SUPPORTED */
  int mig_pending;    /* pending MIG mode (takes effect at the next reset); defaults to mig */
  int mig_monitor;    /* 0: the caller lacks the MIG monitor capability (GI lookups and the
                         MIG-enabled parent's memory answer NO_PERMISSION) */
  unsigned int mig_generation; /* bumped by every layout change: new instances, new UUIDs */
  int cc_major;       /* -1 = NOT_SUPPORTED */
  int cc_minor;
  unsigned long long supported_events;
  long temperature;   /* -1 = NOT_SUPPORTED */
  long power_mw;      /* -1 = NOT_SUPPORTED */
  int util_gpu;       /* -1 = NOT_SUPPORTED */
  int util_mem;
  long sm_clock_mhz;  /* -1 = NOT_SUPPORTED (also for the fields below unless noted) */
  long mem_clock_mhz;
  long long energy_mj;
  long long pcie_replays;
  int enc_util;
  int dec_util;
  long memory_temp;   /* -1 = NOT_SUPPORTED (field NVML_FI_DEV_MEMORY_TEMP) */
  long long nvlink_errors[4]; /* CRC flit, CRC data, replay, recovery totals; -1 = NOT_SUPPORTED */
  int remap_corr;     /* -1 = NOT_SUPPORTED for all four remapped-rows values */
  int remap_unc;
  int remap_pending;
  int remap_failure;
  int ecc;            /* 0 = ECC off: ECC counters and retired pages are NOT_SUPPORTED */
  unsigned long long ecc_corrected;
  unsigned long long ecc_uncorrected;
  int retired_pending;
  int lost;
  int hung;           /* 1: every call on this GPU blocks until unhung (a wedged driver) */
  int duplicate;      /* 1: may repeat another GPU's UUID or bus ID (a firmware fault) */
  int link_count;                          /* links 0..link_count-1 are ENABLED */
  int link_remote[NVML_NVLINK_MAX_LINKS];  /* peer GPU index per link */
};

/* MIG indices 0..FAKE_MIG_SLOTS-1 per GPU (nvmlDeviceGetMaxMigDeviceCount answers this). */
#define FAKE_MIG_SLOTS 7

/* One MIG device (a compute instance in a GPU instance). MIG handles point at these. */
struct fake_mig {
  int used;                  /* 0: an empty MIG index (NOT_FOUND), as after a destroyed instance */
  unsigned int gpu;          /* parent's index */
  unsigned int gi, ci;       /* instance IDs, as NVML numbers them (not dense) */
  unsigned int profile;      /* GPU-instance profile index into the double's table */
  unsigned int ci_slices;    /* compute slices; equal to the profile's slices unless "1c.3g" */
  unsigned int placement;    /* first memory slice */
  char uuid[NVML_DEVICE_UUID_V2_BUFFER_SIZE];
  unsigned long long memory_used;
};

/* A GPU-instance profile of the double's table (an H100 80GB's, IDs != indices as on drivers). */
struct fake_mig_profile {
  unsigned int index, id, slices, instances, multiprocessors, copy_engines, decoders, jpegs, ofas;
  unsigned long long memory_mib;
  const char *name;
};

struct fake_event {
  unsigned int gpu;
  unsigned long long type;
  unsigned long long data;
  unsigned int gi, ci; /* NVML_VALUE_NOT_AVAILABLE_UINT: the whole GPU */
};

/* Event sets are heap-allocated and kept in a list so handles from callers can be validated. */
struct nvmlEventSet_st {
  struct nvmlEventSet_st *next;
  unsigned long long registered[FAKE_MAX_GPUS]; /* event mask per GPU index */
  struct fake_event queue[FAKE_QUEUE_CAPACITY];
  unsigned int head, count;
  unsigned long long dropped;
  int waiters; /* threads blocked in nvmlEventSetWait_v2 on this set */
  int freed;   /* freed (or library shut down) while a waiter was blocked: last waiter frees it */
};

/* Scenario-driven configuration; reset on every (re)load. */
struct fake_scenario {
  char driver[NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE];
  int cuda; /* 0 = unknown: cuda queries return LIBRARY_NOT_FOUND */
  int init_error;
  unsigned int gpu_count;
  /* Rows of gpus[] and topo[] any load has written: a reload clears only these, so the pages of a
   * 256-GPU table an 8-GPU scenario never uses stay untouched (and out of the process's RSS). */
  unsigned int rows_used;
  struct nvmlDevice_st gpus[FAKE_MAX_GPUS];
  int topo[FAKE_MAX_GPUS][FAKE_MAX_GPUS]; /* level + 1; FAKE_TOPO_UNSET = derive from NUMA */
  struct fake_mig migs[FAKE_MAX_GPUS][FAKE_MIG_SLOTS];
};

struct fake_global {
  pthread_mutex_t lock;
  pthread_mutex_t lifecycle;
  pthread_cond_t changed; /* CLOCK_MONOTONIC; broadcast on every event/lost/fail-waits/stop */
  int cond_ready;
  unsigned int init_count;
  struct fake_scenario sc;
  struct nvmlEventSet_st *sets;
  int fail_waits_code;
  int fail_waits_left;
  unsigned int waiting; /* threads inside nvmlEventSetWait_v2 (acceld_fake_waiting) */
  /* control file thread */
  char control_path[FAKE_PATH_MAX];
  long control_offset;
  int control_running;
  int control_stop;
  int control_wake_fd; /* eventfd that stops the thread's inotify wait; -1 = none (poll instead) */
  pthread_t control_thread;
};

extern struct fake_global g_fake;

/* Counts every exported NVML call (acceld_fake_call_count). */
void fake_count_call(void);

/* fake_nvml.c: call prologue/epilogue. On SUCCESS the lock is held until fake_leave. */
nvmlReturn_t fake_enter(void);
nvmlReturn_t fake_leave(nvmlReturn_t rc);
struct nvmlDevice_st *fake_device_locked(nvmlDevice_t handle);
nvmlReturn_t fake_enter_device(nvmlDevice_t handle, struct nvmlDevice_st **out, int fail_if_lost);

/* fake_nvml_scenario.c: fills sc from the file; never fails (problems go to stderr). */
void fake_scenario_load(struct fake_scenario *sc, const char *path);
void fake_scenario_path(char *out, size_t size);
void fake_control_path(char *out, size_t size, const char *scenario_path);

/* fake_nvml_events.c: all require g_fake.lock held. */
int fake_queue_event_locked(unsigned int gpu, unsigned long long type, unsigned long long data);
int fake_queue_instance_event_locked(unsigned int gpu, unsigned long long type,
                                     unsigned long long data, unsigned int gi, unsigned int ci);
void fake_free_all_sets_locked(void);

/* fake_nvml_control.c: control-file thread. Called with lifecycle held, lock NOT held. */
void fake_control_start(const char *scenario_path);
void fake_control_stop(void);

/* Shared implementations of the acceld_fake_* controls (take the lock themselves). */
int fake_set_lost(unsigned int gpu, int lost);
int fake_set_hung(unsigned int gpu, int hung);
int fake_fail_waits(int code, int count);
int fake_add_ecc(unsigned int gpu, unsigned long long corrected, unsigned long long uncorrected);
int fake_inject(unsigned int gpu, unsigned long long type, unsigned long long data);

/* fake_nvml_mig.c */
/* The MIG device a handle points at, or NULL (lock held). */
struct fake_mig *fake_mig_locked(nvmlDevice_t handle);
const struct fake_mig_profile *fake_mig_profile(unsigned int index);
/* Replaces GPU gpu's MIG devices with names[0..n) ("1g.10gb", optionally "@<gi>"); NULL on
 * success, else why nothing changed (lock held or scenario not live). */
const char *fake_mig_layout(struct fake_scenario *sc, unsigned int gpu, char **names, int n);
/* Control-file forms (take the lock themselves). */
int fake_mig_relayout(unsigned int gpu, char **names, int n);
int fake_mig_mode(unsigned int gpu, int current, int pending);
int fake_inject_instance(unsigned int gpu, unsigned long long type, unsigned long long data,
                         unsigned int gi, unsigned int ci);

#endif /* ACCELD_FAKE_NVML_INTERNAL_H */
