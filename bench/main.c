/*
 * linkguard's benchmark: prints figures, asserts nothing. Absolute times
 * are indicative only on a noisy machine; the ratios between the
 * strategies are the point.
 *
 *   linkguard-bench [RUNS [EVENTS]]     defaults: 11 runs, 10000 events
 */
#include <stdio.h>
#include <stdlib.h>
#include <wlr/version.h>
#include "bench.h"
#include "stack/harness.h"

int main(int argc, char *argv[]) {
	int runs = argc > 1 ? atoi(argv[1]) : 11;
	int events = argc > 2 ? atoi(argv[2]) : 10000;
	if (runs < 1 || runs > BENCH_MAX_SAMPLES || events < 10) {
		fprintf(stderr, "usage: %s [RUNS (1-%d) [EVENTS (>= 10)]]\n", argv[0],
			BENCH_MAX_SAMPLES);
		return 1;
	}
	harness_quiet();
	printf("linkguard benchmark, wlroots %s, headless with the DRM replay\n",
		WLR_VERSION_STR);
	bench_recovery(runs);
	bench_burst(runs);
	bench_scale(events);
	return 0;
}
