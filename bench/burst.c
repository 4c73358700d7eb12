/*
 * A glitch burst: link-status BAD again and again on a link that still
 * carries 4K60 (a loose cable), then quiet. Stock wlroots and a compositor
 * recreate the output at each BAD; linkguard retrains, steps down once it
 * flaps and goes back to 4K60 once the link is quiet for a flap window
 * (linkguard-recovery(7), P3, P4, P7). The windows are scaled down as in
 * tests/stack/test_shortest_path.c, so that a run takes seconds.
 */
#include <stdio.h>
#include "bench.h"

#define GLITCHES 12
#define GLITCH_GAP_MS 300
#define FLAP_WINDOW_MS 3000
/* After the last glitch: a flap window, the settle time and some room. */
#define AFTER_MS (FLAP_WINDOW_MS + 2000)

struct figures {
	struct bench_stats modesets, after_last, best_ms, removed;
};

/*
 * 4K60, the monitor's preferred mode: an output stock wlroots recreates
 * reports no refresh until its first frame (0).
 */
static bool is_4k60(const struct harness_commit *commit) {
	return commit->enabled && commit->width == 3840 && commit->height == 2160 &&
		(commit->refresh_mhz == 0 ||
		(commit->refresh_mhz >= 59900 && commit->refresh_mhz <= 60100));
}

static void run_once(bool linkguard, struct figures *fig) {
	struct lg_options options;
	lg_options_init(&options);
	options.recover = linkguard;
	options.settle_ms = 150;
	options.flap_window_ms = FLAP_WINDOW_MS;
	options.backoff_min_ms = 300;
	options.backoff_max_ms = 18000;
	struct bench_bed bed;
	struct replay_connector *rc = bench_bed_start(&bed, &options);
	if (rc == NULL) {
		return;
	}
	struct harness *h = &bed.replay.h;
	int modesets = h->modesets;

	uint64_t last = 0;
	for (int i = 0; i < GLITCHES; i++) {
		// The link trains as before: only link-status says BAD.
		rc->link_status = LG_LINK_STATUS_BAD;
		last = bench_now_us();
		replay_uevent(rc->replay, rc->id);
		harness_dispatch_for(h, GLITCH_GAP_MS);
	}
	harness_dispatch_for(h, AFTER_MS - GLITCH_GAP_MS);
	harness_client_sync(&bed.client);

	// The frame in 4K60 that stays: the last modeset, if it set 4K60.
	int end = h->modesets < HARNESS_MAX_EVENTS ? h->modesets : HARNESS_MAX_EVENTS;
	int after = 0;
	for (int i = modesets; i < end; i++) {
		after += h->commits[i].usec > last;
	}
	if (end > modesets && is_4k60(&h->commits[end - 1])) {
		uint64_t at = h->commits[end - 1].usec;
		bench_stats_add(&fig->best_ms, at > last ? (double)(at - last) / 1000 : 0);
	}
	bench_stats_add(&fig->modesets, h->modesets - modesets);
	bench_stats_add(&fig->after_last, after);
	bench_stats_add(&fig->removed, bed.client.outputs_removed);
	bench_bed_finish(&bed);
}

static void print_row(const char *what, struct bench_stats *stock,
		struct bench_stats *linkguard, int decimals) {
	char a[64], b[64], ratio[32] = "-";
	bench_stats_format(stock, decimals, a, sizeof(a));
	bench_stats_format(linkguard, decimals, b, sizeof(b));
	double lg = bench_stats_median(linkguard);
	if (stock->len > 0 && linkguard->len > 0 && lg > 0) {
		snprintf(ratio, sizeof(ratio), "%.1f", bench_stats_median(stock) / lg);
	}
	printf("  %-40s %-22s %-22s %s\n", what, a, b, ratio);
}

void bench_burst(int runs) {
	struct figures stock = {0}, linkguard = {0};
	for (int i = 0; i < runs; i++) {
		run_once(false, &stock);
		run_once(true, &linkguard);
	}
	printf("\n4K60 on DP, a burst of %d glitches %d ms apart, then quiet "
		"(flap window %d ms):\nmedian [min-max] of %d runs\n", GLITCHES,
		GLITCH_GAP_MS, FLAP_WINDOW_MS, runs);
	printf("  %-40s %-22s %-22s %s\n", "", "recreate (stock)", "linkguard",
		"stock/linkguard");
	print_row("modesets (KMS commits)", &stock.modesets, &linkguard.modesets, 0);
	print_row("modesets after the last glitch", &stock.after_last,
		&linkguard.after_last, 0);
	print_row("wl_output globals removed", &stock.removed, &linkguard.removed, 0);
	print_row("last glitch -> frame in 4K60 (ms)", &stock.best_ms,
		&linkguard.best_ms, 2);
}
