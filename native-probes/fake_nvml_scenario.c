/*
 * Scenario file for acceld's NVML test double.
 *
 * Location: $ACCELD_FAKE_NVML_SCENARIO, else nvml-scenario.conf next to the loaded .so (tests
 * copy the .so into a temp dir together with the scenario). Read at the first successful
 * nvmlInit and again after a full shutdown. A missing file means zero GPUs and driver "0.0".
 *
 * One directive per line; '#' starts a comment; values containing spaces are double-quoted:
 *   driver 550.54.15
 *   cuda 12040                 # nvmlSystemGetCudaDriverVersion(_v2); absent = LIBRARY_NOT_FOUND
 *   init-error 9               # nvmlInit_v2/nvmlInitWithFlags return this code
 *   gpu uuid=GPU-... name="NVIDIA H100 80GB HBM3" bus=0000:18:00.0 pciid=0x233010de minor=0
 *       memory=85899345920 numa=0 cpus=0-31,64-95 mig=0|1|unsupported cc=9.0|unsupported
 *       events=0x0b temp=41 power=312000 util=37/12 memused=1073741824 ecc=1 lost=0
 *       smclock=1980 memclock=2619 energy=123456789 pcie-replays=3 enc=5 dec=7
 *       remapped=2/1/0/0   # correctable/uncorrectable/pending/failure rows
 *       memtemp=52 nvlink-errors=0/1/4/0   # CRC flit/CRC data/replay/recovery totals
 *       duplicate=1        # may repeat an earlier GPU's uuid or bus (a firmware fault)
 *   topo 0 1 10                # GPU indices (order of gpu lines), NVML topology level
 *   nvlink 0 1 4               # 4 active links between GPU 0 and GPU 1 (both directions)
 * (a gpu directive is a single line). topo/nvlink must come after the gpu lines they name.
 * Omitted gpu keys: generated uuid/bus, minor = index, 80 GiB, numa -1, no CPUs, events 0x0b,
 * ECC on; mig, cc, temp, power, util, smclock, memclock, energy, pcie-replays, enc, dec,
 * remapped, memtemp and nvlink-errors omitted = NOT_SUPPORTED. Each of those keys also takes the value "unsupported", so a
 * scenario can say so explicitly.
 * A malformed line or unknown key prints one line to stderr and the whole line is ignored.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_nvml_internal.h"

#define MAX_TOKENS 64
#define LINE_MAX_LEN 8192

static void dirname_of(const char *path, char *out, size_t size) {
  const char *slash = strrchr(path, '/');
  if (slash == NULL) {
    snprintf(out, size, ".");
  } else if (slash == path) {
    snprintf(out, size, "/");
  } else {
    snprintf(out, size, "%.*s", (int)(slash - path), path);
  }
}

void fake_scenario_path(char *out, size_t size) {
  const char *env = getenv("ACCELD_FAKE_NVML_SCENARIO");
  if (env != NULL && env[0] != '\0') {
    snprintf(out, size, "%s", env);
    return;
  }
  /*
   * dladdr on one of our own symbols names the file this copy was loaded from. It must be a
   * hidden symbol: JNA loads with RTLD_GLOBAL, so &nvmlInit_v2 in a second copy of the library
   * would resolve to the first copy's function and find the first copy's scenario.
   */
  Dl_info info;
  char dir[FAKE_PATH_MAX] = ".";
  if (dladdr((const void *)&fake_scenario_path, &info) != 0 && info.dli_fname != NULL) {
    dirname_of(info.dli_fname, dir, sizeof(dir));
  }
  snprintf(out, size, "%s/nvml-scenario.conf", dir);
}

void fake_control_path(char *out, size_t size, const char *scenario_path) {
  const char *env = getenv("ACCELD_FAKE_NVML_CONTROL");
  if (env != NULL && env[0] != '\0') {
    snprintf(out, size, "%s", env);
    return;
  }
  char dir[FAKE_PATH_MAX];
  dirname_of(scenario_path, dir, sizeof(dir));
  snprintf(out, size, "%s/nvml-control", dir);
}

/* ---------------------------------------------------------------- diagnostics */

struct parse_ctx {
  const char *path;
  int line;
};

__attribute__((format(printf, 2, 3))) static void complain(const struct parse_ctx *ctx,
                                                          const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  fprintf(stderr, "fake-nvml: %s:%d: %s; line ignored\n", ctx->path, ctx->line, msg);
}

/* ---------------------------------------------------------------- tokenizer */

/*
 * Splits in place on blanks; "..." groups blanks into a value and the quotes are dropped
 * (so key="a b" becomes the token key=a b). '#' outside quotes ends the line.
 * Returns the token count, or -1 with *err set.
 */
static int tokenize(char *line, char **tokens, int max, const char **err) {
  int n = 0;
  char *r = line;
  for (;;) {
    while (*r == ' ' || *r == '\t' || *r == '\r' || *r == '\n') r++;
    if (*r == '\0' || *r == '#') return n;
    if (n == max) {
      *err = "too many fields";
      return -1;
    }
    char *w = r;
    tokens[n++] = w;
    int quoted = 0;
    while (*r != '\0') {
      if (*r == '"') {
        quoted = !quoted;
        r++;
      } else if (!quoted && (*r == ' ' || *r == '\t' || *r == '\r' || *r == '\n' || *r == '#')) {
        break;
      } else {
        *w++ = *r++;
      }
    }
    if (quoted) {
      *err = "unterminated quote";
      return -1;
    }
    char end = *r;
    *w = '\0';
    if (end == '\0' || end == '#') return n;
    r++;
  }
}

/* ---------------------------------------------------------------- value parsers */

static int parse_ull(const char *s, unsigned long long *out) {
  if (*s == '\0' || *s == '-' || *s == '+' || *s == ' ') return 0;
  char *end;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 0);
  if (errno != 0 || *end != '\0') return 0;
  *out = v;
  return 1;
}

static int parse_long(const char *s, long min, long max, long *out) {
  if (*s == '\0') return 0;
  char *end;
  errno = 0;
  long v = strtol(s, &end, 0);
  if (errno != 0 || *end != '\0' || v < min || v > max) return 0;
  *out = v;
  return 1;
}

static int parse_int(const char *s, int min, int max, int *out) {
  long v;
  if (!parse_long(s, min, max, &v)) return 0;
  *out = (int)v;
  return 1;
}

static int parse_bus(const char *s, struct nvmlDevice_st *d) {
  unsigned int domain = 0, bus, dev, fn;
  int n = 0;
  size_t len = strlen(s);
  if (sscanf(s, "%x:%x:%x.%x%n", &domain, &bus, &dev, &fn, &n) != 4 || (size_t)n != len) {
    n = 0;
    domain = 0;
    if (sscanf(s, "%x:%x.%x%n", &bus, &dev, &fn, &n) != 3 || (size_t)n != len) return 0;
  }
  if (bus > 0xff || dev > 0x1f || fn > 7) return 0;
  d->domain = domain;
  d->bus = bus;
  d->device = dev;
  return 1;
}

/* "0-31,64-95"; empty = no CPUs. */
static int parse_cpus(const char *s, unsigned long *words) {
  const int bits = 8 * (int)sizeof(unsigned long);
  memset(words, 0, sizeof(unsigned long) * FAKE_CPU_WORDS);
  while (*s != '\0') {
    char *end;
    errno = 0;
    long lo = strtol(s, &end, 10);
    if (end == s || errno != 0 || lo < 0) return 0;
    long hi = lo;
    s = end;
    if (*s == '-') {
      s++;
      hi = strtol(s, &end, 10);
      if (end == s || errno != 0) return 0;
      s = end;
    }
    if (hi < lo || hi >= FAKE_MAX_CPUS) return 0;
    for (long c = lo; c <= hi; c++) words[c / bits] |= 1UL << (c % bits);
    if (*s == ',') {
      s++;
      if (*s == '\0') return 0;
    } else if (*s != '\0') {
      return 0;
    }
  }
  return 1;
}

/* ---------------------------------------------------------------- directives */

static void gpu_defaults(struct nvmlDevice_st *d, unsigned int index) {
  memset(d, 0, sizeof(*d));
  d->index = index;
  snprintf(d->uuid, sizeof(d->uuid), "GPU-00000000-0000-0000-0000-%012u", index);
  snprintf(d->name, sizeof(d->name), "Fake NVIDIA GPU");
  d->bus = (index + 1) & 0xffu;
  d->pci_device_id = 0x233010deu;
  d->minor = index;
  d->memory_total = 80ULL << 30;
  d->numa = -1;
  d->mig = -1;
  d->mig_pending = -2; /* unset: follows mig */
  d->mig_monitor = 1;
  d->cc_major = -1;
  d->supported_events = nvmlEventTypeXidCriticalError | nvmlEventTypeDoubleBitEccError |
                        nvmlEventTypeSingleBitEccError;
  d->temperature = -1;
  d->power_mw = -1;
  d->util_gpu = -1;
  d->util_mem = -1;
  d->sm_clock_mhz = -1;
  d->mem_clock_mhz = -1;
  d->energy_mj = -1;
  d->pcie_replays = -1;
  d->enc_util = -1;
  d->dec_util = -1;
  d->remap_corr = d->remap_unc = d->remap_pending = d->remap_failure = -1;
  d->memory_temp = -1;
  for (int i = 0; i < 4; i++) d->nvlink_errors[i] = -1;
  d->ecc = 1;
}

/* Optional readings: "unsupported" or a number in [0, max]. Returns 0 on a malformed value. */
static int parse_reading(const char *v, long long max, long long *out) {
  unsigned long long u;
  if (strcmp(v, "unsupported") == 0) {
    *out = -1;
    return 1;
  }
  if (!parse_ull(v, &u) || u > (unsigned long long)max) return 0;
  *out = (long long)u;
  return 1;
}

/* Returns NULL on success, else the reason. */
static const char *gpu_key(struct nvmlDevice_st *d, const char *key, const char *v) {
  unsigned long long u;
  long l;
  int a, b;
  if (strcmp(key, "uuid") == 0) {
    if (*v == '\0' || strlen(v) >= sizeof(d->uuid)) return "bad uuid";
    snprintf(d->uuid, sizeof(d->uuid), "%s", v);
  } else if (strcmp(key, "name") == 0) {
    if (strlen(v) >= sizeof(d->name)) return "name too long";
    snprintf(d->name, sizeof(d->name), "%s", v);
  } else if (strcmp(key, "bus") == 0) {
    if (!parse_bus(v, d)) return "bad bus (want DDDD:BB:DD.F)";
  } else if (strcmp(key, "pciid") == 0) {
    if (!parse_ull(v, &u) || u > 0xffffffffULL) return "bad pciid";
    d->pci_device_id = (unsigned int)u;
  } else if (strcmp(key, "minor") == 0) {
    if (!parse_long(v, 0, 0x7fffffffL, &l)) return "bad minor";
    d->minor = (unsigned int)l;
  } else if (strcmp(key, "memory") == 0) {
    if (!parse_ull(v, &u)) return "bad memory";
    d->memory_total = u;
  } else if (strcmp(key, "memused") == 0) {
    if (!parse_ull(v, &u)) return "bad memused";
    d->memory_used = u;
  } else if (strcmp(key, "numa") == 0) {
    if (!parse_int(v, -1, 1 << 20, &d->numa)) return "bad numa";
  } else if (strcmp(key, "cpus") == 0) {
    if (!parse_cpus(v, d->cpus)) return "bad cpus (want e.g. 0-31,64-95)";
  } else if (strcmp(key, "mig") == 0) {
    if (strcmp(v, "unsupported") == 0) {
      d->mig = -1;
    } else if (!parse_int(v, 0, 1, &d->mig)) {
      return "bad mig (want 0, 1 or unsupported)";
    }
  } else if (strcmp(key, "mig-pending") == 0) {
    if (!parse_int(v, 0, 1, &d->mig_pending)) return "bad mig-pending (want 0 or 1)";
  } else if (strcmp(key, "mig-monitor") == 0) {
    if (!parse_int(v, 0, 1, &d->mig_monitor)) return "bad mig-monitor (want 0 or 1)";
  } else if (strcmp(key, "cc") == 0) {
    int n = 0;
    if (strcmp(v, "unsupported") == 0) {
      d->cc_major = -1;
    } else if (sscanf(v, "%d.%d%n", &a, &b, &n) == 2 && (size_t)n == strlen(v) && a >= 0 &&
               b >= 0) {
      d->cc_major = a;
      d->cc_minor = b;
    } else {
      return "bad cc (want e.g. 9.0)";
    }
  } else if (strcmp(key, "events") == 0) {
    if (!parse_ull(v, &u)) return "bad events";
    d->supported_events = u;
  } else if (strcmp(key, "temp") == 0) {
    if (strcmp(v, "unsupported") == 0) {
      d->temperature = -1;
    } else if (!parse_long(v, 0, 1000, &d->temperature)) {
      return "bad temp";
    }
  } else if (strcmp(key, "smclock") == 0 || strcmp(key, "memclock") == 0) {
    long long mhz;
    if (!parse_reading(v, 100000, &mhz)) return "bad clock (want MHz or unsupported)";
    *(key[0] == 's' ? &d->sm_clock_mhz : &d->mem_clock_mhz) = (long)mhz;
  } else if (strcmp(key, "energy") == 0) {
    if (!parse_reading(v, 0x7fffffffffffffffLL, &d->energy_mj)) {
      return "bad energy (want millijoules or unsupported)";
    }
  } else if (strcmp(key, "pcie-replays") == 0) {
    if (!parse_reading(v, 0xffffffffLL, &d->pcie_replays)) {
      return "bad pcie-replays (want a count or unsupported)";
    }
  } else if (strcmp(key, "enc") == 0 || strcmp(key, "dec") == 0) {
    long long pct;
    if (!parse_reading(v, 100, &pct)) return "bad enc/dec (want percent or unsupported)";
    *(key[0] == 'e' ? &d->enc_util : &d->dec_util) = (int)pct;
  } else if (strcmp(key, "memtemp") == 0) {
    long long c;
    if (!parse_reading(v, 1000, &c)) return "bad memtemp (want C or unsupported)";
    d->memory_temp = (long)c;
  } else if (strcmp(key, "nvlink-errors") == 0) {
    unsigned long long e[4];
    int n = 0;
    if (strcmp(v, "unsupported") == 0) {
      for (int i = 0; i < 4; i++) d->nvlink_errors[i] = -1;
    } else if (sscanf(v, "%llu/%llu/%llu/%llu%n", &e[0], &e[1], &e[2], &e[3], &n) == 4 &&
               (size_t)n == strlen(v) && v[0] != '-') {
      for (int i = 0; i < 4; i++) d->nvlink_errors[i] = (long long)(e[i] & 0x7fffffffffffffffULL);
    } else {
      return "bad nvlink-errors (want flit/data/replay/recovery, e.g. 0/1/4/0)";
    }
  } else if (strcmp(key, "remapped") == 0) {
    int c, u2, p, f, n = 0;
    if (strcmp(v, "unsupported") == 0) {
      d->remap_corr = d->remap_unc = d->remap_pending = d->remap_failure = -1;
    } else if (sscanf(v, "%d/%d/%d/%d%n", &c, &u2, &p, &f, &n) == 4 && (size_t)n == strlen(v) &&
               c >= 0 && u2 >= 0 && p >= 0 && p <= 1 && f >= 0 && f <= 1) {
      d->remap_corr = c;
      d->remap_unc = u2;
      d->remap_pending = p;
      d->remap_failure = f;
    } else {
      return "bad remapped (want corrected/uncorrected/pending/failure, e.g. 2/1/0/0)";
    }
  } else if (strcmp(key, "power") == 0) {
    if (!parse_long(v, 0, 0x7fffffffL, &d->power_mw)) return "bad power (milliwatts)";
  } else if (strcmp(key, "util") == 0) {
    int n = 0;
    if (sscanf(v, "%d/%d%n", &a, &b, &n) != 2 || (size_t)n != strlen(v) || a < 0 || a > 100 ||
        b < 0 || b > 100) {
      return "bad util (want gpu/memory percent, e.g. 37/12)";
    }
    d->util_gpu = a;
    d->util_mem = b;
  } else if (strcmp(key, "ecc") == 0) {
    if (!parse_int(v, 0, 1, &d->ecc)) return "bad ecc (want 0 or 1)";
  } else if (strcmp(key, "lost") == 0) {
    if (!parse_int(v, 0, 1, &d->lost)) return "bad lost (want 0 or 1)";
  } else if (strcmp(key, "duplicate") == 0) {
    if (!parse_int(v, 0, 1, &d->duplicate)) return "bad duplicate (want 0 or 1)";
  } else {
    return "unknown key";
  }
  return NULL;
}

static void gpu_line(struct fake_scenario *sc, const struct parse_ctx *ctx, char **tok, int n) {
  if (sc->gpu_count == FAKE_MAX_GPUS) {
    complain(ctx, "more than %d gpus", FAKE_MAX_GPUS);
    return;
  }
  struct nvmlDevice_st d;
  gpu_defaults(&d, sc->gpu_count);
  for (int i = 1; i < n; i++) {
    char *eq = strchr(tok[i], '=');
    if (eq == NULL) {
      complain(ctx, "'%s' is not key=value", tok[i]);
      return;
    }
    *eq = '\0';
    const char *err = gpu_key(&d, tok[i], eq + 1);
    if (err != NULL) {
      complain(ctx, "%s: %s=%s", err, tok[i], eq + 1);
      return;
    }
  }
  if (d.memory_used > d.memory_total) {
    complain(ctx, "memused exceeds memory");
    return;
  }
  if (d.mig_pending == -2) d.mig_pending = d.mig < 0 ? 0 : d.mig;
  if (d.mig >= 0) d.supported_events |= nvmlEventMigConfigChange;
  for (unsigned int i = 0; i < sc->gpu_count && !d.duplicate; i++) {
    const struct nvmlDevice_st *o = &sc->gpus[i];
    if (strcmp(o->uuid, d.uuid) == 0) {
      complain(ctx, "duplicate uuid %s", d.uuid);
      return;
    }
    if (o->domain == d.domain && o->bus == d.bus && o->device == d.device) {
      complain(ctx, "duplicate bus id");
      return;
    }
  }
  sc->gpus[sc->gpu_count++] = d;
  if (sc->gpu_count > sc->rows_used) sc->rows_used = sc->gpu_count;
}

static int gpu_index(const struct fake_scenario *sc, const char *s, unsigned int *out) {
  long v;
  if (!parse_long(s, 0, (long)sc->gpu_count - 1, &v)) return 0;
  *out = (unsigned int)v;
  return 1;
}

static void pair_line(struct fake_scenario *sc, const struct parse_ctx *ctx, char **tok, int n) {
  unsigned int a, b;
  long value;
  int is_topo = strcmp(tok[0], "topo") == 0;
  if (n != 4) {
    complain(ctx, "want: %s <gpu> <gpu> <%s>", tok[0], is_topo ? "level" : "links");
    return;
  }
  if (!gpu_index(sc, tok[1], &a) || !gpu_index(sc, tok[2], &b) || a == b) {
    complain(ctx, "bad gpu index (gpu lines must come first; indices must differ)");
    return;
  }
  if (!parse_long(tok[3], 0, is_topo ? 1000 : NVML_NVLINK_MAX_LINKS, &value)) {
    complain(ctx, "bad %s '%s'", is_topo ? "level" : "link count", tok[3]);
    return;
  }
  if (is_topo) {
    sc->topo[a][b] = (int)value + 1;
    sc->topo[b][a] = (int)value + 1;
    return;
  }
  struct nvmlDevice_st *da = &sc->gpus[a], *db = &sc->gpus[b];
  if (da->link_count + value > NVML_NVLINK_MAX_LINKS ||
      db->link_count + value > NVML_NVLINK_MAX_LINKS) {
    complain(ctx, "more than %d nvlinks on one gpu", NVML_NVLINK_MAX_LINKS);
    return;
  }
  for (long i = 0; i < value; i++) {
    da->link_remote[da->link_count++] = (int)b;
    db->link_remote[db->link_count++] = (int)a;
  }
}

static void parse_line(struct fake_scenario *sc, const struct parse_ctx *ctx, char *line) {
  char *tok[MAX_TOKENS];
  const char *err = NULL;
  int n = tokenize(line, tok, MAX_TOKENS, &err);
  if (n < 0) {
    complain(ctx, "%s", err);
    return;
  }
  if (n == 0) return;
  if (strcmp(tok[0], "gpu") == 0) {
    gpu_line(sc, ctx, tok, n);
  } else if (strcmp(tok[0], "topo") == 0 || strcmp(tok[0], "nvlink") == 0) {
    pair_line(sc, ctx, tok, n);
  } else if (strcmp(tok[0], "mig") == 0) {
    unsigned int gpu;
    if (n < 2 || !gpu_index(sc, tok[1], &gpu)) {
      complain(ctx, "want: mig <gpu> <profile>[@<gi>] ... (after the gpu line)");
      return;
    }
    if (sc->gpus[gpu].mig != 1) {
      complain(ctx, "gpu %u is not in MIG mode (mig=1)", gpu);
      return;
    }
    const char *err = fake_mig_layout(sc, gpu, tok + 2, n - 2);
    if (err != NULL) complain(ctx, "%s", err);
  } else if (strcmp(tok[0], "driver") == 0) {
    if (n != 2 || strlen(tok[1]) >= sizeof(sc->driver)) {
      complain(ctx, "want: driver <version>");
      return;
    }
    snprintf(sc->driver, sizeof(sc->driver), "%s", tok[1]);
  } else if (strcmp(tok[0], "cuda") == 0) {
    if (n != 2 || !parse_int(tok[1], 1, 1000000, &sc->cuda)) complain(ctx, "want: cuda <e.g. 12040>");
  } else if (strcmp(tok[0], "init-error") == 0) {
    if (n != 2 || !parse_int(tok[1], 0, 0x7fffffff, &sc->init_error)) {
      complain(ctx, "want: init-error <nvml return code>");
    }
  } else {
    complain(ctx, "unknown directive '%s'", tok[0]);
  }
}

void fake_scenario_load(struct fake_scenario *sc, const char *path) {
  memset(sc->gpus, 0, sc->rows_used * sizeof(sc->gpus[0]));
  memset(sc->topo, 0, sc->rows_used * sizeof(sc->topo[0]));
  memset(sc->migs, 0, sc->rows_used * sizeof(sc->migs[0]));
  memset(sc, 0, offsetof(struct fake_scenario, gpus));
  snprintf(sc->driver, sizeof(sc->driver), "0.0");
  FILE *f = fopen(path, "r");
  if (f == NULL) {
    if (errno != ENOENT) fprintf(stderr, "fake-nvml: %s: %s; no GPUs\n", path, strerror(errno));
    return;
  }
  static char line[LINE_MAX_LEN]; /* called with g_fake.lock held: no concurrent use */
  struct parse_ctx ctx = {path, 0};
  while (fgets(line, sizeof(line), f) != NULL) {
    ctx.line++;
    size_t len = strlen(line);
    if (len > 0 && line[len - 1] != '\n' && !feof(f)) {
      complain(&ctx, "line longer than %d characters", LINE_MAX_LEN - 2);
      int c;
      while ((c = fgetc(f)) != EOF && c != '\n') {
      }
      continue;
    }
    parse_line(sc, &ctx, line);
  }
  fclose(f);
}
