/*
 * Self-test of the NVML test double under sanitizers (not part of the Maven build; run
 * `sh native-probes/selftest.sh`). Links the double's sources directly into this program and
 * points it at a scenario via ACCELD_FAKE_NVML_SCENARIO / ACCELD_FAKE_NVML_CONTROL.
 * Covers what the Java tests cannot see: leaks over repeated init/shutdown, a waiter blocked
 * across shutdown, cross-thread wake-ups and malformed scenario lines.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "nvml_types.h"

int acceld_fake_inject_event(unsigned int gpu, unsigned long long type, unsigned long long data);
int acceld_fake_set_lost(unsigned int gpu, int lost);
int acceld_fake_fail_waits(int code, int count);
unsigned long long acceld_fake_call_count(void);

static int failures;

#define CHECK(cond)                                                   \
  do {                                                                \
    if (!(cond)) {                                                    \
      fprintf(stderr, "selftest: %s:%d: %s\n", __FILE__, __LINE__, #cond); \
      failures++;                                                     \
    }                                                                 \
  } while (0)

static char scenario[256], control[256];

static void write_file(const char *path, const char *mode, const char *text) {
  FILE *f = fopen(path, mode);
  if (f == NULL) {
    perror(path);
    exit(2);
  }
  fputs(text, f);
  fclose(f);
}

static void sleep_ms(long ms) {
  struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&t, NULL);
}

static long now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000L + t.tv_nsec / 1000000L;
}

struct waiter {
  nvmlEventSet_t set;
  unsigned int timeout;
  nvmlReturn_t rc;
  nvmlEventData_t data;
};

static void *wait_thread(void *arg) {
  struct waiter *w = arg;
  w->rc = nvmlEventSetWait_v2(w->set, &w->data, w->timeout);
  return NULL;
}

static void *inject_later(void *arg) {
  (void)arg;
  sleep_ms(50);
  acceld_fake_inject_event(1, nvmlEventTypeXidCriticalError, 79);
  return NULL;
}

static void test_basics(void) {
  nvmlDevice_t d0, d1;
  unsigned int count = 99;
  char buf[96];
  CHECK(nvmlDeviceGetCount_v2(&count) == NVML_ERROR_UNINITIALIZED);
  CHECK(nvmlInit_v2() == NVML_SUCCESS);
  CHECK(nvmlDeviceGetCount_v2(&count) == NVML_SUCCESS && count == 2);
  CHECK(nvmlDeviceGetHandleByIndex_v2(0, &d0) == NVML_SUCCESS);
  CHECK(nvmlDeviceGetHandleByIndex_v2(1, &d1) == NVML_SUCCESS);
  CHECK(nvmlDeviceGetHandleByIndex_v2(2, &d1) == NVML_ERROR_INVALID_ARGUMENT);
  CHECK(nvmlDeviceGetUUID(d0, buf, 5) == NVML_ERROR_INSUFFICIENT_SIZE);
  CHECK(nvmlDeviceGetName(d0, buf, sizeof(buf)) == NVML_SUCCESS &&
        strcmp(buf, "NVIDIA H100 80GB HBM3") == 0);
  nvmlPciInfo_t pci;
  CHECK(nvmlDeviceGetPciInfo_v3(d1, &pci) == NVML_SUCCESS);
  CHECK(strcmp(pci.busId, "00000000:3B:00.0") == 0 && strcmp(pci.busIdLegacy, "0000:3B:00.0") == 0);
  nvmlDevice_t byBus;
  CHECK(nvmlDeviceGetHandleByPciBusId_v2("0000:3b:00.0", &byBus) == NVML_SUCCESS && byBus == d1);
  nvmlMemory_v2_t mem = {0};
  CHECK(nvmlDeviceGetMemoryInfo_v2(d0, &mem) == NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
  mem.version = nvmlMemory_v2;
  CHECK(nvmlDeviceGetMemoryInfo_v2(d0, &mem) == NVML_SUCCESS && mem.total == 85899345920ULL);
  unsigned long cpus[2] = {0, 0};
  CHECK(nvmlDeviceGetCpuAffinity(d0, 2, cpus) == NVML_SUCCESS);
  CHECK(cpus[0] == 0xffffffffUL && cpus[1] == 0xffffffffUL);
  nvmlGpuTopologyLevel_t level;
  CHECK(nvmlDeviceGetTopologyCommonAncestor(d0, d1, &level) == NVML_SUCCESS && level == 10);
  nvmlEnableState_t active;
  CHECK(nvmlDeviceGetNvLinkState(d0, 3, &active) == NVML_SUCCESS && active == 1);
  CHECK(nvmlDeviceGetNvLinkState(d0, 4, &active) == NVML_ERROR_NOT_SUPPORTED);
  CHECK(nvmlDeviceGetNvLinkState(d0, 36, &active) == NVML_ERROR_INVALID_ARGUMENT);
  CHECK(nvmlDeviceGetNvLinkRemotePciInfo_v2(d0, 0, &pci) == NVML_SUCCESS && pci.bus == 0x3b);
  CHECK(nvmlShutdown() == NVML_SUCCESS);
  CHECK(nvmlShutdown() == NVML_SUCCESS); /* extra shutdown is fine */
  CHECK(nvmlDeviceGetCount_v2(&count) == NVML_ERROR_UNINITIALIZED);
}

static void test_telemetry(void) {
  nvmlDevice_t d0, d1;
  unsigned int v = 0, period = 0, corr, unc, pending, failed;
  unsigned long long energy = 0;
  CHECK(nvmlInit_v2() == NVML_SUCCESS);
  CHECK(nvmlDeviceGetHandleByIndex_v2(0, &d0) == NVML_SUCCESS);
  CHECK(nvmlDeviceGetHandleByIndex_v2(1, &d1) == NVML_SUCCESS);
  CHECK(nvmlDeviceGetClockInfo(d0, NVML_CLOCK_SM, &v) == NVML_SUCCESS && v == 1980);
  CHECK(nvmlDeviceGetClockInfo(d0, NVML_CLOCK_MEM, &v) == NVML_SUCCESS && v == 2619);
  CHECK(nvmlDeviceGetClockInfo(d0, 9, &v) == NVML_ERROR_INVALID_ARGUMENT);
  CHECK(nvmlDeviceGetClockInfo(d1, NVML_CLOCK_SM, &v) == NVML_ERROR_NOT_SUPPORTED);
  CHECK(nvmlDeviceGetTotalEnergyConsumption(d0, &energy) == NVML_SUCCESS &&
        energy == 5000000000ULL);
  CHECK(nvmlDeviceGetPcieReplayCounter(d0, &v) == NVML_SUCCESS && v == 3);
  CHECK(nvmlDeviceGetEncoderUtilization(d0, &v, &period) == NVML_SUCCESS && v == 4);
  CHECK(nvmlDeviceGetDecoderUtilization(d0, &v, &period) == NVML_SUCCESS && v == 6);
  CHECK(nvmlDeviceGetRemappedRows(d0, &corr, &unc, &pending, &failed) == NVML_SUCCESS &&
        corr == 2 && unc == 1 && pending == 0 && failed == 1);
  CHECK(nvmlDeviceGetRemappedRows(d1, &corr, &unc, &pending, &failed) ==
        NVML_ERROR_NOT_SUPPORTED);
  nvmlFieldValue_t fv[3] = {{.fieldId = NVML_FI_DEV_MEMORY_TEMP},
                            {.fieldId = NVML_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL},
                            {.fieldId = 12345}};
  CHECK(nvmlDeviceGetFieldValues(d0, 3, fv) == NVML_SUCCESS);
  CHECK(fv[0].nvmlReturn == NVML_SUCCESS && fv[0].valueType == NVML_VALUE_TYPE_UNSIGNED_INT &&
        fv[0].value.uiVal == 52);
  CHECK(fv[1].nvmlReturn == NVML_SUCCESS && fv[1].value.ullVal == 4);
  CHECK(fv[2].nvmlReturn == NVML_ERROR_NOT_SUPPORTED);
  CHECK(nvmlDeviceGetFieldValues(d0, 0, fv) == NVML_ERROR_INVALID_ARGUMENT);
  CHECK(nvmlDeviceGetFieldValues(d1, 1, fv) == NVML_SUCCESS &&
        fv[0].nvmlReturn == NVML_ERROR_NOT_SUPPORTED);
  CHECK(nvmlShutdown() == NVML_SUCCESS);
}

static void test_events(void) {
  nvmlEventSet_t set;
  nvmlDevice_t d1;
  CHECK(nvmlInit_v2() == NVML_SUCCESS);
  CHECK(nvmlEventSetCreate(&set) == NVML_SUCCESS);
  CHECK(nvmlDeviceGetHandleByIndex_v2(1, &d1) == NVML_SUCCESS);
  CHECK(acceld_fake_inject_event(1, nvmlEventTypeXidCriticalError, 1) == 0); /* not registered */
  CHECK(nvmlDeviceRegisterEvents(d1, nvmlEventTypeClock, set) == NVML_ERROR_NOT_SUPPORTED);
  CHECK(nvmlDeviceRegisterEvents(d1, nvmlEventTypeXidCriticalError, set) == NVML_SUCCESS);

  struct waiter w = {set, 5000, -1, {0}};
  pthread_t waiter, injector;
  long start = now_ms();
  pthread_create(&waiter, NULL, wait_thread, &w);
  pthread_create(&injector, NULL, inject_later, NULL);
  pthread_join(injector, NULL);
  pthread_join(waiter, NULL);
  CHECK(w.rc == NVML_SUCCESS && w.data.device == d1 && w.data.eventData == 79);
  CHECK(w.data.gpuInstanceId == 0xFFFFFFFFu);
  CHECK(now_ms() - start < 2000);

  nvmlEventData_t data;
  start = now_ms();
  CHECK(nvmlEventSetWait_v2(set, &data, 100) == NVML_ERROR_TIMEOUT);
  CHECK(now_ms() - start >= 100);
  CHECK(acceld_fake_fail_waits(NVML_ERROR_UNKNOWN, 2) == NVML_SUCCESS);
  CHECK(nvmlEventSetWait_v2(set, &data, 0) == NVML_ERROR_UNKNOWN);
  CHECK(nvmlEventSetWait_v2(set, &data, 0) == NVML_ERROR_UNKNOWN);
  CHECK(nvmlEventSetWait_v2(set, &data, 0) == NVML_ERROR_TIMEOUT);

  /* control file: lines appended after init are executed by the poll thread */
  write_file(control, "a", "bogus line\nxid 1 48\n");
  start = now_ms();
  CHECK(nvmlEventSetWait_v2(set, &data, 3000) == NVML_SUCCESS && data.eventData == 48);
  CHECK(now_ms() - start < 2000);

  CHECK(acceld_fake_set_lost(1, 1) == NVML_SUCCESS);
  CHECK(nvmlEventSetWait_v2(set, &data, 1000) == NVML_ERROR_GPU_IS_LOST);
  char buf[96];
  CHECK(nvmlDeviceGetUUID(d1, buf, sizeof(buf)) == NVML_ERROR_GPU_IS_LOST);
  CHECK(acceld_fake_set_lost(1, 0) == NVML_SUCCESS);

  /* a waiter blocked across the final shutdown returns, and its set is freed by it */
  struct waiter blocked = {set, 10000, -1, {0}};
  pthread_create(&waiter, NULL, wait_thread, &blocked);
  sleep_ms(50);
  start = now_ms();
  CHECK(nvmlShutdown() == NVML_SUCCESS);
  pthread_join(waiter, NULL);
  CHECK(blocked.rc == NVML_ERROR_UNINITIALIZED);
  CHECK(now_ms() - start < 2000);
}

static void test_repeated_init(void) {
  write_file(scenario, "w", "driver 1.0\ngpu uuid=GPU-a\ngpu uuid=GPU-b\nnvlink 0 1 2\n");
  for (int i = 0; i < 200; i++) {
    nvmlEventSet_t a, b;
    CHECK(nvmlInit_v2() == NVML_SUCCESS);
    CHECK(nvmlInitWithFlags(NVML_INIT_FLAG_NO_GPUS) == NVML_SUCCESS); /* refcount 2 */
    CHECK(nvmlEventSetCreate(&a) == NVML_SUCCESS);
    CHECK(nvmlEventSetCreate(&b) == NVML_SUCCESS);
    CHECK(nvmlEventSetFree(a) == NVML_SUCCESS);
    CHECK(nvmlShutdown() == NVML_SUCCESS);
    unsigned int count;
    CHECK(nvmlDeviceGetCount_v2(&count) == NVML_SUCCESS); /* still initialised */
    CHECK(nvmlShutdown() == NVML_SUCCESS);                 /* b is freed here */
  }
  /* init-error is honoured and leaves the library uninitialised */
  write_file(scenario, "a", "init-error 18\n");
  CHECK(nvmlInit_v2() == NVML_ERROR_LIB_RM_VERSION_MISMATCH);
  unsigned int count;
  CHECK(nvmlDeviceGetCount_v2(&count) == NVML_ERROR_UNINITIALIZED);
}

int main(void) {
  char dir[] = "/tmp/fake-nvml-selftest-XXXXXX";
  if (mkdtemp(dir) == NULL) return 2;
  snprintf(scenario, sizeof(scenario), "%s/nvml-scenario.conf", dir);
  snprintf(control, sizeof(control), "%s/nvml-control", dir);
  setenv("ACCELD_FAKE_NVML_SCENARIO", scenario, 1);
  setenv("ACCELD_FAKE_NVML_CONTROL", control, 1);
  write_file(scenario, "w",
             "# selftest scenario\n"
             "driver 550.54.15\n"
             "cuda 12040\n"
             "gpu uuid=GPU-a name=\"NVIDIA H100 80GB HBM3\" bus=0000:18:00.0 memory=85899345920 "
             "numa=0 cpus=0-31,64-95 mig=0 cc=9.0 smclock=1980 memclock=2619 energy=5000000000 "
             "pcie-replays=3 enc=4 dec=6 remapped=2/1/0/1 memtemp=52 nvlink-errors=0/1/4/0\n"
             "gpu uuid=GPU-b bus=00000000:3B:00.0 numa=1\n"
             "gpu uuid=GPU-c bogus=1\n"          /* unknown key: ignored */
             "gpu uuid=\"GPU-d\n"                /* unterminated quote: ignored */
             "topo 0 1 10\n"
             "topo 0 7 10\n"                     /* bad index: ignored */
             "nvlink 0 1 4\n"
             "frobnicate\n");                    /* unknown directive: ignored */
  test_basics();
  test_telemetry();
  test_events();
  test_repeated_init();
  CHECK(acceld_fake_call_count() > 1000);
  printf("selftest: %s (%llu NVML calls)\n", failures == 0 ? "OK" : "FAILED",
         acceld_fake_call_count());
  unlink(scenario);
  unlink(control);
  rmdir(dir);
  return failures == 0 ? 0 : 1;
}
