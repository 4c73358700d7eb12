/*
 * linkguard's own cost, with 1, 16 and 64 connectors of which one fails:
 * CPU time per hotplug event (hinted at a good link, bare, and a recovery),
 * forced probes per event, heap per connector, and the process's peak RSS.
 */
#include <malloc.h>
#include <stdio.h>
#include <sys/resource.h>
#include <linkguard/connector.h>
#include "drm/replay.h"
#include "bench.h"

/* Small modes keep 64 headless outputs' buffers cheap. */
static size_t monitor_720p(drmModeModeInfo modes[2]) {
	modes[0] = replay_mode(1280, 720, 60, 74250, true);
	modes[1] = replay_mode(640, 480, 60, 25175, false);
	return 2;
}

static bool setup(struct replay_bed *bed, int connectors) {
	struct lg_options options;
	lg_options_init(&options);
	options.settle_ms = 1;
	options.flap_count = 0; // every BAD is answered: measure, don't hold
	if (!replay_bed_init(bed, &options, false)) {
		return false;
	}
	drmModeModeInfo modes[2];
	size_t n = monitor_720p(modes);
	for (int i = 0; i < connectors; i++) {
		replay_plug(replay_add_connector(&bed->replay, 100 + (uint32_t)i, modes, n));
	}
	return true;
}

/* CPU per event in ns: count uevents for conn_id (0: bare) on good links. */
static double spurious_events(struct replay_bed *bed, uint32_t conn_id, int count) {
	uint64_t start = bench_cpu_ns();
	for (int i = 0; i < count; i++) {
		replay_uevent(&bed->replay, conn_id);
	}
	return (double)(bench_cpu_ns() - start) / count;
}

/*
 * One connector's link fails, 720p is pruned, linkguard falls back to
 * 640x480; a retry (not timed) brings 720p back for the next round. Two
 * modesets a round: linkguard's budget (12 in 10 s) ends the rounds after
 * six, when the retry is refused; the figures are those of the rounds done.
 */
static double recoveries(struct replay_bed *bed, int count, double *probes) {
	struct replay_connector *rc = &bed->replay.conns[0];
	struct lg_connector *conn = drm_device_find_connector(bed->device, rc->id)->conn;
	uint64_t cpu = 0;
	int before = rc->forced_probes, retry_probes = 0, done = 0;
	for (int i = 0; i < count; i++) {
		replay_lower_link(rc, 60000);
		uint64_t start = bench_cpu_ns();
		replay_uevent(&bed->replay, rc->id);
		cpu += bench_cpu_ns() - start;
		harness_dispatch_for(&bed->h, 3); // the settle timer
		rc->link_khz = UINT32_MAX;
		int p = rc->forced_probes;
		if (lg_connector_retry(conn) != LG_RETRY_COMMITTED) {
			break;
		}
		retry_probes += rc->forced_probes - p;
		harness_dispatch_for(&bed->h, 3);
		done++;
	}
	*probes = done > 0 ? (double)(rc->forced_probes - before - retry_probes) / done : 0;
	return done > 0 ? (double)cpu / done : 0;
}

/* What linkguard holds per connector: freed when its device goes. */
static double heap_per_connector(struct replay_bed *bed, int connectors) {
	size_t before = mallinfo2().uordblks;
	drm_device_destroy(bed->device);
	bed->device = NULL;
	size_t after = mallinfo2().uordblks;
	return before > after ? (double)(before - after) / connectors : 0;
}

void bench_scale(int events) {
	static const int sizes[] = { 1, 16, 64 };
	printf("\nlinkguard's own cost (one connector fails, the others are good)\n");
	printf("  %-11s %-16s %-16s %-16s %-14s %s\n", "connectors",
		"hinted, good", "bare HOTPLUG=1", "recovery", "forced probes",
		"heap/connector");
	printf("  %-11s %-16s %-16s %-16s %-14s %s\n", "", "(us/event)",
		"(us/event)", "(us/event)", "(per recovery)", "(bytes)");
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		struct replay_bed bed;
		if (!setup(&bed, sizes[i])) {
			fprintf(stderr, "bench: cannot set up %d connectors\n", sizes[i]);
			return;
		}
		double hinted = spurious_events(&bed, 100, events);
		double bare = spurious_events(&bed, 0, events / 10);
		double probes = 0;
		double recovery = recoveries(&bed, 50, &probes);
		double heap = heap_per_connector(&bed, sizes[i]);
		printf("  %-11d %-16.2f %-16.2f %-16.2f %-14.2f %.0f\n", sizes[i],
			hinted / 1000, bare / 1000, recovery / 1000, probes, heap);
		replay_bed_finish(&bed);
	}
	printf("  (%d hinted and %d bare events in a row per size)\n", events,
		events / 10);
	struct rusage usage;
	getrusage(RUSAGE_SELF, &usage);
	printf("\npeak RSS of the whole benchmark: %ld KiB\n", usage.ru_maxrss);
}
