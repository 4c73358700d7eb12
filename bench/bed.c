/*
 * The bench's test bed, shared by its rows: the DRM replay under the
 * scenario harness (a stock compositor or linkguard), a real Wayland client
 * that counts wl_output globals, and a 4K60 monitor plugged in.
 */
#include <stdio.h>
#include "bench.h"

struct replay_connector *bench_bed_start(struct bench_bed *bed,
		const struct lg_options *options) {
	if (!replay_bed_init(&bed->replay, options, !options->recover)) {
		fprintf(stderr, "bench: cannot set up the replay\n");
		return NULL;
	}
	if (!harness_client_connect(&bed->client, bed->replay.h.display)) {
		fprintf(stderr, "bench: cannot connect a client\n");
		replay_bed_finish(&bed->replay);
		return NULL;
	}
	drmModeModeInfo modes[4];
	size_t n = replay_monitor_4k(modes);
	struct replay_connector *rc = replay_add_connector(&bed->replay.replay, 42,
		modes, n);
	replay_plug(rc);
	harness_client_sync(&bed->client);
	return rc;
}

void bench_bed_finish(struct bench_bed *bed) {
	harness_client_finish(&bed->client);
	replay_bed_finish(&bed->replay);
}
