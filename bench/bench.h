#ifndef BENCH_BENCH_H
#define BENCH_BENCH_H

#include <stddef.h>
#include <stdint.h>
#include "drm/replay.h"
#include "stack/client.h"

/* Repeated measurements of one figure: median and spread. */
#define BENCH_MAX_SAMPLES 64

struct bench_stats {
	double samples[BENCH_MAX_SAMPLES];
	size_t len;
};

void bench_stats_add(struct bench_stats *stats, double value);
/* The median, 0 without samples (sorts them). */
double bench_stats_median(struct bench_stats *stats);
/*
 * "median [min-max]" with the given decimals; without samples "not
 * measured", counted by bench_unmeasured().
 */
const char *bench_stats_format(struct bench_stats *stats, int decimals,
	char *buf, size_t size);
/* The median divided by unit, or "not measured" as above. */
const char *bench_stats_format_median(struct bench_stats *stats, double unit,
	int decimals, char *buf, size_t size);
/* How many figures were printed as "not measured": the bench then fails. */
int bench_unmeasured(void);

uint64_t bench_now_us(void);
uint64_t bench_cpu_ns(void);

/* bed.c: a stock compositor (options->recover false) or linkguard. */
struct bench_bed {
	struct replay_bed replay;
	struct harness_client client;
};
/* Sets it up with a 4K60 monitor plugged in; NULL if it can't (said why). */
struct replay_connector *bench_bed_start(struct bench_bed *bed,
	const struct lg_options *options);
void bench_bed_finish(struct bench_bed *bed);

/* recovery.c: recreate vs linkguard, alternating, runs times each. */
void bench_recovery(int runs);
/* burst.c: a glitch burst, then quiet: recreate vs linkguard, runs times each. */
void bench_burst(int runs);
/* scale.c: CPU per event at 1/16/64 connectors, probes, heap, RSS. */
void bench_scale(int events);

#endif
