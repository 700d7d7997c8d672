/* How late this machine wakes a real-time thread from idle: on CPU argv[1], at SCHED_FIFO 80,
 * argv[2] absolute sleeps of argv[3] microseconds each; prints the lateness of each wake-up in
 * nanoseconds, one a line. The analyses without a platform file assume an ideal processor, one
 * that wakes a thread at once; a virtual machine whose host is busy wakes an idle vCPU hundreds
 * of microseconds late, and the end-to-end tests that hold runs to those bounds measure it first
 * (conftest.machine_unfit_for_ideal_bounds). */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static long long now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000000000LL + t.tv_nsec;
}

int main(int argc, char** argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: wake_lateness CPU COUNT PERIOD_US\n");
    return 2;
  }
  cpu_set_t cpus;
  CPU_ZERO(&cpus);
  CPU_SET(atoi(argv[1]), &cpus);
  if (sched_setaffinity(0, sizeof cpus, &cpus) != 0) {
    perror("sched_setaffinity");
    return 1;
  }
  struct sched_param priority = {.sched_priority = 80};
  if (sched_setscheduler(0, SCHED_FIFO, &priority) != 0) {
    perror("sched_setscheduler");
    return 1;
  }
  const int count = atoi(argv[2]);
  const long long period = atoll(argv[3]) * 1000LL;
  long long wake = now_ns() + period;
  for (int i = 0; i < count; ++i, wake += period) {
    const struct timespec at = {wake / 1000000000LL, wake % 1000000000LL};
    clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL);
    printf("%lld\n", now_ns() - wake);
  }
  return 0;
}
