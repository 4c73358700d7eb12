/*
 * linkguard's own cost, with 1, 16 and 64 connectors of which one fails at
 * a time:
 * CPU time per hotplug event (hinted at a good link, bare, and a recovery),
 * forced probes per event, heap per connector, and the process's peak RSS.
 */
#include <malloc.h>
#include <stdio.h>
#include <sys/resource.h>
#include <core/machine.h>
#include <core/recovery.h>
#include <linkguard/connector.h>
#include "drm/replay.h"
#include "bench.h"

/* Recovery rounds a size: at most six a connector (recoveries()). */
#define RECOVERIES 48

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

/* The recovery is over: nothing armed, the link neither BAD nor training. */
static bool settled(void *data) {
	struct lg_connector *conn = data;
	return recovery_idle(conn) && conn->state != LG_LINK_BAD &&
		conn->state != LG_LINK_RETRAINING;
}

/*
 * One connector's link fails, 720p is pruned, linkguard falls back to
 * 640x480; a retry (not timed) brings 720p back for the next round. Each
 * step waits for the recovery to settle, never for a fixed time: on a
 * loaded machine (or with 64 outputs) a recovery outlasts any such wait
 * and the retry asked before it settled was refused, so no round ran. Two
 * modesets a round: the budget allows a connector six rounds in its
 * window, so the rounds go to the connectors in turn. CPU per recovery and
 * forced probes per recovery, one sample a round.
 */
static void recoveries(struct replay_bed *bed, int connectors, int count,
		struct bench_stats *cpu, struct bench_stats *probes) {
	int per_connector = MACHINE_BUDGET_MODESETS / 2;
	if (count > connectors * per_connector) {
		count = connectors * per_connector;
	}
	for (int i = 0; i < count; i++) {
		struct replay_connector *rc = &bed->replay.conns[i % connectors];
		struct lg_connector *conn =
			drm_device_find_connector(bed->device, rc->id)->conn;
		int before = rc->forced_probes;
		replay_lower_link(rc, 60000);
		uint64_t start = bench_cpu_ns();
		replay_uevent(&bed->replay, rc->id);
		uint64_t spent = bench_cpu_ns() - start;
		if (!harness_dispatch_until(&bed->h, settled, conn, 5000)) {
			return;
		}
		bench_stats_add(cpu, (double)spent);
		bench_stats_add(probes, rc->forced_probes - before);
		rc->link_khz = UINT32_MAX;
		if (lg_connector_retry(conn) != LG_RETRY_COMMITTED ||
				!harness_dispatch_until(&bed->h, settled, conn, 5000)) {
			return;
		}
	}
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
	printf("  %-11s %-16s %-16s %-16s %-14s %-14s %s\n", "connectors",
		"hinted, good", "bare HOTPLUG=1", "recovery", "forced probes",
		"heap/connector", "recoveries");
	printf("  %-11s %-16s %-16s %-16s %-14s %-14s %s\n", "", "(us/event)",
		"(us/event)", "(us/event)", "(per recovery)", "(bytes)", "(timed)");
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		struct replay_bed bed;
		if (!setup(&bed, sizes[i])) {
			char none[32];
			printf("  %-11d %s: cannot set up\n", sizes[i], bench_stats_format(
				&(struct bench_stats){0}, 0, none, sizeof(none)));
			continue;
		}
		double hinted = spurious_events(&bed, 100, events);
		double bare = spurious_events(&bed, 0, events / 10);
		struct bench_stats cpu = {0}, probes = {0};
		recoveries(&bed, sizes[i], RECOVERIES, &cpu, &probes);
		double heap = heap_per_connector(&bed, sizes[i]);
		char recovery[32], forced[32];
		printf("  %-11d %-16.2f %-16.2f %-16s %-14s %-14.0f %zu\n", sizes[i],
			hinted / 1000, bare / 1000,
			bench_stats_format_median(&cpu, 1000, 2, recovery, sizeof(recovery)),
			bench_stats_format_median(&probes, 1, 2, forced, sizeof(forced)),
			heap, cpu.len);
		replay_bed_finish(&bed);
	}
	printf("  (%d hinted and %d bare events in a row per size; the recoveries'\n"
		"  medians, at most six a connector: the modeset budget)\n",
		events, events / 10);
	struct rusage usage;
	getrusage(RUSAGE_SELF, &usage);
	printf("\npeak RSS of the whole benchmark: %ld KiB\n", usage.ru_maxrss);
}
