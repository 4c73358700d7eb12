/*
 * One failure, two strategies, in the same process, alternating: what
 * stock wlroots and a compositor do (wlroots turns the CRTC off, destroys
 * the output and creates a new one with the pruned list; the compositor
 * enables it as it comes), and linkguard's in-place recovery. The kernel
 * is the DRM replay of tests/drm, the compositor the scenario harness, and
 * a real Wayland client counts wl_output globals.
 */
#include <stdio.h>
#include "bench.h"

enum failure {
	SAME_MODE_FITS, // link lowered, 4K60 still fits at fewer bpp
	MODE_PRUNED, // 4K60 pruned: 4K30
	CASCADE, // 4K60 retrained, fails again: 4K30
};

static const char *failure_name[] = {
	[SAME_MODE_FITS] = "link lowered, mode still fits",
	[MODE_PRUNED] = "mode pruned",
	[CASCADE] = "cascade (fails again)",
};

struct figures {
	struct bench_stats modesets, removed, added, frame_ms, probes;
};

static void inject(struct replay_connector *rc, enum failure failure) {
	switch (failure) {
	case SAME_MODE_FITS:
		replay_lower_link(rc, 540000);
		break;
	case MODE_PRUNED:
		replay_lower_link(rc, 300000);
		break;
	case CASCADE:
		rc->cascade_khz = 300000;
		replay_lower_link(rc, 540000);
		break;
	}
	replay_uevent(rc->replay, rc->id);
}

static void run_once(bool linkguard, enum failure failure, struct figures *fig) {
	struct lg_options options;
	lg_options_init(&options);
	options.settle_ms = 50;
	options.recover = linkguard;
	struct bench_bed bed;
	struct replay_connector *rc = bench_bed_start(&bed, &options);
	if (rc == NULL) {
		return;
	}
	struct harness *h = &bed.replay.h;
	struct harness_client *client = &bed.client;
	int modesets = h->modesets, added = client->outputs_added;

	uint64_t start = bench_now_us();
	inject(rc, failure);
	harness_dispatch_for(h, 120);
	harness_client_sync(client);

	// The frame that stays: the last modeset that enabled the output.
	for (int i = h->modesets - 1; i >= modesets; i--) {
		if (i < HARNESS_MAX_EVENTS && h->commits[i].enabled) {
			bench_stats_add(&fig->frame_ms,
				(double)(h->commits[i].usec - start) / 1000);
			break;
		}
	}
	bench_stats_add(&fig->modesets, h->modesets - modesets);
	bench_stats_add(&fig->removed, client->outputs_removed);
	bench_stats_add(&fig->added, client->outputs_added - added);
	bench_stats_add(&fig->probes, rc->forced_probes);
	bench_bed_finish(&bed);
}

static void print_row(const char *what, struct bench_stats *recreate,
		struct bench_stats *linkguard, int decimals) {
	char a[64], b[64];
	printf("  %-40s %-22s %s\n", what,
		bench_stats_format(recreate, decimals, a, sizeof(a)),
		bench_stats_format(linkguard, decimals, b, sizeof(b)));
}

void bench_recovery(int runs) {
	for (enum failure failure = SAME_MODE_FITS; failure <= CASCADE; failure++) {
		struct figures recreate = {0}, linkguard = {0};
		for (int i = 0; i < runs; i++) {
			run_once(false, failure, &recreate);
			run_once(true, failure, &linkguard);
		}
		printf("\n4K60 on DP, %s: median [min-max] of %d runs\n",
			failure_name[failure], runs);
		printf("  %-40s %-22s %s\n", "", "recreate (stock)", "linkguard");
		print_row("modesets (KMS commits)", &recreate.modesets,
			&linkguard.modesets, 0);
		print_row("wl_output globals removed", &recreate.removed,
			&linkguard.removed, 0);
		print_row("wl_output globals added", &recreate.added,
			&linkguard.added, 0);
		print_row("failure -> frame in the final mode (ms)", &recreate.frame_ms,
			&linkguard.frame_ms, 2);
		print_row("forced probes by linkguard", &recreate.probes,
			&linkguard.probes, 0);
	}
}
