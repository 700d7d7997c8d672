/* bench/channels_raw_dds.c -- the raw Cyclone DDS baseline of bench/channels.py: what a Kairos
 * channel does on DDS, with nothing of Kairos around it, at the same period and payload.
 *
 *   channels_raw_dds pub <topic> <lifespan_ms> <period_us> <seconds> <cpu>
 *   channels_raw_dds sub <topic> <lifespan_ms> <seconds> <cpu>
 *
 * The publisher writes one chbench_Reading (idlc's C type of the benchmark model, 64 bytes in
 * CDR) per period from a SCHED_FIFO thread woken by an absolute timer, stamped with the time of
 * the write. Each subscriber takes the samples in its reader's listener, on the DDS thread that
 * received them, and records their one-way age (its wall clock minus the source timestamp: one
 * host, one clock). At the end it prints `raw delivered=<n> delivery_p50_us=<f>
 * delivery_p99_us=<f> delivery_max_us=<f>`, the names of a Kairos node's `channel` line, and the
 * publisher `raw published=<n>`.
 * QoS as a `best-effort` Kairos channel with a `validity` of <lifespan_ms>: best effort,
 * keep-last 1, volatile, that lifespan. <cpu> pins the process (-1: any CPU), as the Kairos nodes
 * are pinned. */
#define _GNU_SOURCE
#include <dds/dds.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "channels.h"

enum { kMaxSamples = 1 << 20 };

static int64_t ages_ns[kMaxSamples];
static volatile uint32_t age_count;

static void pin(int cpu) {
  if (cpu < 0) {
    return;
  }
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  if (sched_setaffinity(0, sizeof set, &set) != 0) {
    fprintf(stderr, "raw: cannot pin to CPU %d: %s\n", cpu, strerror(errno));
    exit(2);
  }
}

static double lifespan_ms;

static dds_qos_t* channel_qos(void) {
  dds_qos_t* qos = dds_create_qos();
  dds_qset_reliability(qos, DDS_RELIABILITY_BEST_EFFORT, 0);
  dds_qset_history(qos, DDS_HISTORY_KEEP_LAST, 1);
  dds_qset_durability(qos, DDS_DURABILITY_VOLATILE);
  dds_qset_lifespan(qos, (dds_duration_t)(lifespan_ms * 1e6));
  return qos;
}

static void on_data(dds_entity_t reader, void* arg) {
  (void)arg;
  void* samples[16] = {0};
  dds_sample_info_t infos[16];
  const dds_return_t taken = dds_take(reader, samples, infos, 16, 16);
  const dds_time_t now = dds_time();
  for (dds_return_t i = 0; i < taken; ++i) {
    if (infos[i].valid_data && age_count < kMaxSamples) {
      ages_ns[age_count++] = now - infos[i].source_timestamp;
    }
  }
  if (taken > 0) {
    dds_return_loan(reader, samples, taken);
  }
}

static int compare(const void* a, const void* b) {
  const int64_t x = *(const int64_t*)a, y = *(const int64_t*)b;
  return (x > y) - (x < y);
}

static int subscribe(dds_entity_t participant, dds_entity_t topic, double seconds) {
  dds_qos_t* qos = channel_qos();
  dds_listener_t* listener = dds_create_listener(NULL);
  dds_lset_data_available(listener, on_data);
  const dds_entity_t reader = dds_create_reader(participant, topic, qos, listener);
  dds_delete_listener(listener);
  dds_delete_qos(qos);
  if (reader < 0) {
    fprintf(stderr, "raw: no reader: %s\n", dds_strretcode(reader));
    return 1;
  }
  dds_sleepfor((dds_duration_t)(seconds * 1e9));
  dds_delete(reader);  // waits for a listener call in progress
  const uint32_t n = age_count;
  qsort(ages_ns, n, sizeof ages_ns[0], compare);
  if (n == 0) {
    printf("raw delivered=0 delivery_p50_us=0 delivery_p99_us=0 delivery_max_us=0\n");
    return 0;
  }
  printf("raw delivered=%u delivery_p50_us=%.1f delivery_p99_us=%.1f delivery_max_us=%.1f\n", n,
         ages_ns[n / 2] / 1e3, ages_ns[(uint64_t)n * 99 / 100] / 1e3, ages_ns[n - 1] / 1e3);
  return 0;
}

static int publish(dds_entity_t participant, dds_entity_t topic, long period_us, double seconds) {
  dds_qos_t* qos = channel_qos();
  const dds_entity_t writer = dds_create_writer(participant, topic, qos, NULL);
  dds_delete_qos(qos);
  if (writer < 0) {
    fprintf(stderr, "raw: no writer: %s\n", dds_strretcode(writer));
    return 1;
  }
  // The thread that writes runs as the Kairos hub does: SCHED_FIFO, above DDS's own threads.
  struct sched_param param = {.sched_priority = 20};
  if (pthread_setschedparam(pthread_self(), SCHED_FIFO, &param) != 0) {
    fprintf(stderr, "raw: SCHED_FIFO refused; writing at normal priority\n");
  }
  chbench_Reading reading;
  memset(&reading, 0, sizeof reading);
  struct timespec next;
  clock_gettime(CLOCK_MONOTONIC, &next);
  const long count = (long)(seconds * 1e6 / (double)period_us);
  for (long k = 0; k < count; ++k) {
    next.tv_nsec += period_us * 1000;
    while (next.tv_nsec >= 1000000000L) {
      next.tv_nsec -= 1000000000L;
      ++next.tv_sec;
    }
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) == EINTR) {
    }
    reading.seq = (uint64_t)k + 1;
    reading.v1 = (double)reading.seq;
    dds_write_ts(writer, &reading, dds_time());
  }
  printf("raw published=%ld\n", count);
  return 0;
}

/* Reads argv[index] as a number in [low, high]; false (and says which argument) otherwise. */
static int number(char** argv, int index, double low, double high, double* out) {
  char* end = NULL;
  errno = 0;
  *out = strtod(argv[index], &end);
  if (errno != 0 || end == argv[index] || *end != '\0' || *out < low || *out > high) {
    fprintf(stderr, "raw: argument %d, '%s': expected a number from %g to %g\n", index, argv[index],
            low, high);
    return 0;
  }
  return 1;
}

int main(int argc, char** argv) {
  const int pub = argc == 7 && strcmp(argv[1], "pub") == 0;
  const int sub = argc == 6 && strcmp(argv[1], "sub") == 0;
  double period_us = 0, seconds = 0, cpu = -1;
  if ((!pub && !sub) || !number(argv, 3, 1, 3.6e6, &lifespan_ms) ||
      (pub && !(number(argv, 4, 100, 1e7, &period_us) && number(argv, 5, 0.001, 3600, &seconds))) ||
      (sub && !number(argv, 4, 0.001, 3600, &seconds)) ||
      !number(argv, argc - 1, -1, CPU_SETSIZE - 1, &cpu) || cpu != (int)cpu) {
    fprintf(stderr,
            "usage: channels_raw_dds pub <topic> <lifespan_ms> <period_us> <seconds> <cpu>\n"
            "       channels_raw_dds sub <topic> <lifespan_ms> <seconds> <cpu>\n"
            "       (lifespan 1 ms to 1 h, period 100 us to 10 s, seconds up to 3600,\n"
            "       cpu -1 for any)\n");
    return 2;
  }
  pin((int)cpu);
  dds_qos_t* qos = dds_create_qos();
  dds_qset_ignorelocal(qos, DDS_IGNORELOCAL_PARTICIPANT);
  const dds_entity_t participant = dds_create_participant(DDS_DOMAIN_DEFAULT, qos, NULL);
  dds_delete_qos(qos);
  if (participant < 0) {
    fprintf(stderr, "raw: no participant: %s\n", dds_strretcode(participant));
    return 1;
  }
  const dds_entity_t topic =
      dds_create_topic(participant, &chbench_Reading_desc, argv[2], NULL, NULL);
  if (topic < 0) {
    fprintf(stderr, "raw: no topic: %s\n", dds_strretcode(topic));
    return 1;
  }
  const int rc = pub ? publish(participant, topic, (long)period_us, seconds)
                     : subscribe(participant, topic, seconds);
  dds_delete(participant);
  return rc;
}
