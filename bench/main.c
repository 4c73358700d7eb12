/*
 * linkguard's benchmark: prints figures and bounds none. Absolute times
 * are indicative only on a noisy machine; the ratios between the
 * strategies are the point. A figure that measured nothing is printed as
 * "not measured", never as a number, and the bench exits 1.
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
	if (bench_unmeasured() > 0) {
		fprintf(stderr, "bench: %d figures above measured nothing (\"not measured\")\n",
			bench_unmeasured());
		return 1;
	}
	return 0;
}
