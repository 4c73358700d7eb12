#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "bench.h"

void bench_stats_add(struct bench_stats *stats, double value) {
	if (stats->len < BENCH_MAX_SAMPLES) {
		stats->samples[stats->len++] = value;
	}
}

static int compare(const void *a, const void *b) {
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

double bench_stats_median(struct bench_stats *stats) {
	if (stats->len == 0) {
		return 0;
	}
	qsort(stats->samples, stats->len, sizeof(double), compare);
	return stats->len % 2 ? stats->samples[stats->len / 2] :
		(stats->samples[stats->len / 2 - 1] + stats->samples[stats->len / 2]) / 2;
}

/* Figures printed without a sample (bench_unmeasured). */
static int unmeasured;

static const char *not_measured(char *buf, size_t size) {
	unmeasured++;
	snprintf(buf, size, "not measured");
	return buf;
}

const char *bench_stats_format(struct bench_stats *stats, int decimals,
		char *buf, size_t size) {
	if (stats->len == 0) {
		return not_measured(buf, size);
	}
	double median = bench_stats_median(stats); // sorts
	snprintf(buf, size, "%.*f [%.*f-%.*f]", decimals, median, decimals,
		stats->samples[0], decimals, stats->samples[stats->len - 1]);
	return buf;
}

const char *bench_stats_format_median(struct bench_stats *stats, double unit,
		int decimals, char *buf, size_t size) {
	if (stats->len == 0) {
		return not_measured(buf, size);
	}
	snprintf(buf, size, "%.*f", decimals, bench_stats_median(stats) / unit);
	return buf;
}

int bench_unmeasured(void) {
	return unmeasured;
}

uint64_t bench_now_us(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

uint64_t bench_cpu_ns(void) {
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + (uint64_t)ts.tv_nsec;
}
