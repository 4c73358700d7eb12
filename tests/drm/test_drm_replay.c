/*
 * backend/drm against replayed kernel behaviour (tests/drm/replay.c): what
 * i915 reports after a failed link training, through the same seam the
 * libdrm implementation uses, on wlroots' headless outputs. Each case
 * asserts the commits linkguard made and that no output was destroyed
 * where none had to be.
 */
#define _GNU_SOURCE // mkdtemp
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>
#include <wlr/backend.h>
#include <wlr/types/wlr_output.h>
#include <core/backend.h>
#include <core/recovery.h>
#include <kms/device.h>
#include <linkguard/backend.h>
#include <linkguard/connector.h>
#include <linkguard/log.h>
#include "test.h"
#include "replay.h"
#include "stack/client.h"

static void setup(struct replay_bed *f, const struct lg_options *options) {
	if (!replay_bed_init(f, options, false)) {
		fprintf(stderr, "cannot set up the replay\n");
		exit(1);
	}
}

/* A bed whose sink settles and is polled every 50 ms (options: its own). */
static void setup_polled(struct replay_bed *f, struct lg_options *options) {
	lg_options_init(options);
	options->settle_ms = 50;
	options->sink_poll_ms = 50;
	setup(f, options);
}

/* A bed whose links settle in settle_ms (options: its own). */
static void setup_settle(struct replay_bed *f, struct lg_options *options,
		uint32_t settle_ms) {
	lg_options_init(options);
	options->settle_ms = settle_ms;
	setup(f, options);
}

static struct replay_connector *plug_4k(struct replay_bed *f, uint32_t id,
		drmModeModeInfo *modes) {
	size_t n = replay_monitor_4k(modes);
	struct replay_connector *rc = replay_add_connector(&f->replay, id, modes, n);
	replay_plug(rc);
	return rc;
}

static struct lg_connector *conn_of(struct replay_bed *f, uint32_t id) {
	struct drm_connector *dc = drm_device_find_connector(f->device, id);
	return dc != NULL ? dc->conn : NULL;
}

struct awaited {
	struct lg_connector *conn;
	enum lg_link_state state;
};

static bool at_rest(void *data) {
	const struct awaited *awaited = data;
	return awaited->conn->state == awaited->state && recovery_idle(awaited->conn);
}

static bool left(void *data) {
	const struct awaited *awaited = data;
	return awaited->conn->state != awaited->state;
}

/*
 * Runs the loop until the connector leaves its state (left) or rests in it
 * (at_rest), never for a fixed time: a loaded machine runs the timers late.
 * The backstop only bounds a failing run.
 */
static void await(struct replay_bed *f, uint32_t id, bool (*until)(void *data),
		enum lg_link_state state) {
	struct awaited awaited = { conn_of(f, id), state };
	check(awaited.conn != NULL &&
		harness_dispatch_until(&f->h, until, &awaited, 20000));
}

/* Whether commit i enabled output at the kernel timings info. */
static bool committed(const struct harness *h, int i, struct wlr_output *output,
		const drmModeModeInfo *info) {
	if (i >= h->modesets || i >= HARNESS_MAX_EVENTS) {
		fprintf(stderr, "no commit %d (%d made)\n", i, h->modesets);
		return false;
	}
	const struct harness_commit *c = &h->commits[i];
	bool same = c->output == output && c->enabled &&
		c->width == info->hdisplay && c->height == info->vdisplay &&
		c->refresh_mhz == kms_mode_refresh_mhz(info);
	if (!same) {
		fprintf(stderr, "commit %d: %dx%d@%d (enabled %d)\n", i, c->width,
			c->height, c->refresh_mhz, c->enabled);
	}
	return same;
}

/* The link was answered in place: GOOD again, no output recreated. */
static void check_in_place(struct replay_bed *f, struct replay_connector *rc) {
	check_int_eq(rc->link_status, LG_LINK_STATUS_GOOD);
	check_int_eq(rc->recreates, 0);
	check_int_eq(f->h.outputs_destroyed, 0);
}

/* i915's first answer: lower the link but keep the mode, at fewer bpp. */
static void test_same_mode_retrained(void) {
	struct replay_bed f;
	setup(&f, NULL);
	drmModeModeInfo modes[4];
	struct replay_connector *rc = plug_4k(&f, 42, modes);
	check(committed(&f.h, 0, rc->output, &modes[0]));

	replay_lower_link(rc, 540000);
	replay_uevent(&f.replay, 42);
	check_int_eq(f.h.modesets, 2);
	check(committed(&f.h, 1, rc->output, &modes[0]));
	check_int_eq(rc->forced_probes, 0);
	check_in_place(&f, rc);
	await(&f, 42, at_rest, LG_LINK_GOOD);
	check_int_eq(f.h.modesets, 2);
	check_int_eq(f.h.n_fallbacks, 0);
	replay_bed_finish(&f);
}

/* HOTPLUG=1 CONNECTOR=42 with BAD and 4K60 pruned: one probe, one commit. */
static void test_pruned_mode_falls_back_in_place(void) {
	struct replay_bed f;
	setup(&f, NULL);
	drmModeModeInfo modes[4];
	struct replay_connector *rc = plug_4k(&f, 42, modes);
	struct wlr_output *output = rc->output;

	replay_lower_link(rc, 300000);
	replay_uevent(&f.replay, 42);
	check_int_eq(f.h.modesets, 2);
	check(committed(&f.h, 1, output, &modes[1]));
	check_int_eq(rc->forced_probes, 1);
	check_in_place(&f, rc);
	check(rc->output == output);
	check_int_eq(f.h.n_fallbacks, 1);
	check_int_eq(f.h.fallbacks[0].reason, LG_FALLBACK_MODE_PRUNED);
	await(&f, 42, at_rest, LG_LINK_DEGRADED);
	check_int_eq(f.h.modesets, 2);
	replay_bed_finish(&f);
}

/*
 * link-status is read once per event, when the uevent comes: what was read
 * then decides both that the BAD is answered and that the commit answering
 * it, of modes[answer] after probes forced probes, is a modeset by itself
 * (no blank first).
 */
static void check_read_once(uint32_t link_khz, int answer, int probes) {
	struct replay_bed f;
	setup(&f, NULL);
	drmModeModeInfo modes[4];
	struct replay_connector *rc = plug_4k(&f, 42, modes);
	replay_lower_link(rc, link_khz);
	replay_uevent(&f.replay, 42);
	check_int_eq(f.h.modesets, 2);
	check(committed(&f.h, 1, rc->output, &modes[answer]));
	check_int_eq(rc->forced_probes, probes);
	check_int_eq(rc->blanks, 0);
	check_int_eq(rc->bad_reads, 1);
	replay_bed_finish(&f);
}

static void test_link_status_read_once(void) {
	check_read_once(540000, 0, 0); // the same mode at fewer bpp
	check_read_once(300000, 1, 1); // 4K60 pruned: 4K30
}

/* A bare HOTPLUG=1: only the connector whose link-status is BAD is touched. */
static void test_bare_hotplug_touches_only_bad(void) {
	struct replay_bed f;
	setup(&f, NULL);
	drmModeModeInfo a[4], b[4];
	struct replay_connector *good = plug_4k(&f, 42, a);
	struct replay_connector *bad = plug_4k(&f, 43, b);
	check_int_eq(f.h.modesets, 2);

	replay_lower_link(bad, 300000);
	replay_uevent(&f.replay, 0);
	check_int_eq(f.h.modesets, 3);
	check(committed(&f.h, 2, bad->output, &b[1]));
	check_int_eq(good->forced_probes, 0);
	check_int_eq(bad->forced_probes, 1);
	check_int_eq(f.h.outputs_destroyed, 0);
	replay_bed_finish(&f);
}

/* Counts commits made while all three connectors were being committed. */
struct group_watch;

struct group_slot {
	struct group_watch *watch;
	struct wl_listener commit;
};

struct group_watch {
	struct lg_connector *conns[3];
	int commits, together;
	struct group_slot outputs[3];
};

static void handle_group_commit(struct wl_listener *listener, void *data) {
	struct group_slot *slot = wl_container_of(listener, slot, commit);
	struct group_watch *watch = slot->watch;
	watch->commits++;
	bool all = true;
	for (int i = 0; i < 3; i++) {
		all = all && watch->conns[i]->committing;
	}
	watch->together += all;
}

/* MST: three streams on one link go BAD at once: one atomic commit. */
static void test_mst_three_bad_at_once(void) {
	struct replay_bed f;
	setup(&f, NULL);
	drmModeModeInfo modes[3][4];
	struct replay_connector *rc[3];
	for (int i = 0; i < 3; i++) {
		rc[i] = plug_4k(&f, 50 + (uint32_t)i, modes[i]);
	}
	struct group_watch watch = {0};
	for (int i = 0; i < 3; i++) {
		replay_lower_link(rc[i], 250000);
		watch.conns[i] = conn_of(&f, 50 + (uint32_t)i);
		watch.outputs[i].watch = &watch;
		watch.outputs[i].commit.notify = handle_group_commit;
		wl_signal_add(&rc[i]->output->events.commit, &watch.outputs[i].commit);
	}
	replay_uevent(&f.replay, 0);
	check_int_eq(watch.commits, 3);
	check_int_eq(watch.together, 3);
	for (int i = 0; i < 3; i++) {
		wl_list_remove(&watch.outputs[i].commit.link);
	}
	check_int_eq(f.h.modesets, 6);
	for (int i = 0; i < 3; i++) {
		// 4K30 needs 262750 kHz: 2560x1440@60 is the largest that fits.
		check(committed(&f.h, 3 + i, rc[i]->output, &modes[i][2]));
		check_int_eq(rc[i]->link_status, LG_LINK_STATUS_GOOD);
		check_int_eq(rc[i]->recreates, 0);
	}
	check_int_eq(f.h.n_fallbacks, 3);
	check_int_eq(f.h.outputs_destroyed, 0);
	replay_bed_finish(&f);
}

/*
 * The sink is gone by the time linkguard probes: an unplug, no failure,
 * fed once the step that probed is over (the driver asserts that no event
 * re-enters a step), and a replug lights the monitor again.
 */
static void test_disconnected_at_probe(void) {
	struct replay_bed f;
	setup(&f, NULL);
	drmModeModeInfo modes[4];
	struct replay_connector *rc = plug_4k(&f, 42, modes);
	struct lg_connector *conn = conn_of(&f, 42);
	replay_lower_link(rc, 300000);
	rc->gone_on_probe = true;
	replay_uevent(&f.replay, 42);
	check_int_eq(rc->forced_probes, 1);
	check_int_eq(f.h.modesets, 1);
	check_int_eq(f.h.n_failed, 0);
	check_int_eq(f.h.outputs_destroyed, 1);
	check(!conn->connected);
	check(conn->output == NULL);
	check_int_eq(conn->modes.len, 0);
	check_int_eq(conn->state, LG_LINK_GOOD);
	check(!recovery_answering(conn));
	check(recovery_idle(conn));
	check_int_eq(drm_device_find_connector(f.device, 42)->last_destroy,
		DRM_DESTROY_UNPLUG);

	rc->gone_on_probe = false;
	replay_plug(rc);
	check(conn->connected);
	check(conn->output != NULL && conn->output == rc->output);
	check_int_eq(f.h.modesets, 2);
	check(committed(&f.h, 1, rc->output, &modes[1])); // 4K60 is not listed
	check_int_eq(f.h.n_failed, 0);
	replay_bed_finish(&f);
}

/* BAD and nothing fits: the output is disabled and reported failed. */
static void test_probe_returns_no_mode(void) {
	struct replay_bed f;
	setup(&f, NULL);
	drmModeModeInfo modes[4];
	struct replay_connector *rc = plug_4k(&f, 42, modes);
	replay_lower_link(rc, 100000);
	replay_uevent(&f.replay, 42);
	check_int_eq(f.h.n_failed, 1);
	check_int_eq(rc->forced_probes, 1);
	check_int_eq(f.h.modesets, 2);
	check(!f.h.commits[1].enabled);
	check_int_eq(conn_of(&f, 42)->state, LG_LINK_FAILED);
	replay_bed_finish(&f);
}

/* A connector without link-status (not DP): nothing to answer. */
static void test_missing_property(void) {
	struct replay_bed f;
	setup(&f, NULL);
	drmModeModeInfo modes[4];
	struct replay_connector *rc = plug_4k(&f, 42, modes);
	rc->has_link_status = false;
	replay_lower_link(rc, 300000);
	replay_uevent(&f.replay, 42);
	check_int_eq(f.h.modesets, 1);
	check_int_eq(rc->forced_probes, 0);
	check_int_eq(f.h.outputs_destroyed, 0);
	replay_bed_finish(&f);
}

/* The retrained mode fails again right after our commit: next rung. */
static void test_cascade(void) {
	struct replay_bed f;
	setup(&f, NULL);
	drmModeModeInfo modes[4];
	struct replay_connector *rc = plug_4k(&f, 42, modes);
	struct wlr_output *output = rc->output;
	rc->cascade_khz = 300000;
	replay_lower_link(rc, 540000);
	replay_uevent(&f.replay, 42);
	await(&f, 42, at_rest, LG_LINK_DEGRADED);
	check_int_eq(f.h.modesets, 3);
	check(committed(&f.h, 1, output, &modes[0]));
	check(committed(&f.h, 2, output, &modes[1]));
	check_int_eq(rc->forced_probes, 1);
	check_in_place(&f, rc);
	check_int_eq(f.h.n_fallbacks, 1);
	check_int_eq(conn_of(&f, 42)->state, LG_LINK_DEGRADED);
	replay_bed_finish(&f);
}

/*
 * The compositor is busy for longer than the settle time right after the
 * cascade's first commit: the kernel's next BAD and linkguard's settle
 * timer are both due when the loop runs again. libwayland runs every timer
 * it found due in that dispatch, also one an earlier callback re-armed: the
 * settle of the fallback committed for the BAD must wait its own time.
 */
static void test_cascade_after_a_stall(void) {
	struct lg_options options;
	struct replay_bed f;
	setup_settle(&f, &options, 100);
	drmModeModeInfo modes[4];
	struct replay_connector *rc = plug_4k(&f, 42, modes);
	rc->cascade_khz = 300000;
	replay_lower_link(rc, 540000);
	replay_uevent(&f.replay, 42);
	check_int_eq(f.h.modesets, 2);
	nanosleep(&(struct timespec){ .tv_nsec = 2 * options.settle_ms * 1000000L }, NULL);
	wl_event_loop_dispatch(f.h.loop, 0);
	check_int_eq(f.h.modesets, 3);
	check(committed(&f.h, 2, rc->output, &modes[1]));
	check_int_eq(conn_of(&f, 42)->state, LG_LINK_RETRAINING);
	await(&f, 42, at_rest, LG_LINK_DEGRADED);
	check_int_eq(f.h.modesets, 3);
	replay_bed_finish(&f);
}

/*
 * The link fails while the session is away: neither linkguard nor wlroots
 * answers then. On return wlroots scans first and recreates the output;
 * linkguard classifies the destroy and recommends the fallback.
 */
static void test_session_inactive(void) {
	struct replay_bed f;
	setup(&f, NULL);
	drmModeModeInfo modes[4];
	struct replay_connector *rc = plug_4k(&f, 42, modes);
	replay_set_active(&f.replay, false);
	replay_lower_link(rc, 300000);
	replay_uevent(&f.replay, 42);
	check_int_eq(f.h.modesets, 1);
	check_int_eq(rc->forced_probes, 0);

	replay_set_active(&f.replay, true);
	check_int_eq(rc->recreates, 1);
	check_int_eq(drm_device_find_connector(f.device, 42)->last_destroy,
		DRM_DESTROY_BAD_LINK);
	check_int_eq(f.h.modesets, 3); // on, wlroots' off, the new output's
	check(committed(&f.h, 2, rc->output, &modes[1]));
	struct lg_connector *conn = conn_of(&f, 42);
	check(conn->output == rc->output);
	check_int_eq(conn->requested.refresh_mhz, kms_mode_refresh_mhz(&modes[0]));
	check_int_eq(rc->link_status, LG_LINK_STATUS_GOOD);
	replay_bed_finish(&f);
}

/*
 * With recovery off, wlroots' recreate happens; the new output is offered
 * the fallback, not the pruned preferred mode, and the old scale and
 * transform.
 */
static void test_recreate_gets_recommendation(void) {
	struct lg_options options;
	lg_options_init(&options);
	options.recover = false;
	options.settle_ms = 100;
	struct replay_bed f;
	setup(&f, &options);
	drmModeModeInfo modes[4];
	struct replay_connector *rc = plug_4k(&f, 42, modes);
	struct wlr_output_state state;
	wlr_output_state_init(&state);
	wlr_output_state_set_scale(&state, 2);
	wlr_output_state_set_transform(&state, WL_OUTPUT_TRANSFORM_90);
	check(wlr_output_commit_state(rc->output, &state));
	wlr_output_state_finish(&state);
	replay_lower_link(rc, 300000);
	replay_uevent(&f.replay, 42);
	check_int_eq(rc->recreates, 1);
	check_int_eq(f.h.outputs_created, 2);
	check(rc->output->scale == 2);
	check_int_eq(rc->output->transform, WL_OUTPUT_TRANSFORM_90);
	check_int_eq(drm_device_find_connector(f.device, 42)->last_destroy,
		DRM_DESTROY_BAD_LINK);
	check_int_eq(f.h.modesets, 3); // on, wlroots' off, the new output's
	check(committed(&f.h, 2, rc->output, &modes[1]));
	check_int_eq(conn_of(&f, 42)->requested.refresh_mhz,
		kms_mode_refresh_mhz(&modes[0]));
	replay_bed_finish(&f);
}

/*
 * A compositor that keeps its own output configuration (sway) gets the
 * fallback as a MODE-only request, applied before wlroots' handler runs;
 * the same-mode retrain, which a request cannot express, is committed.
 */
static void test_fallback_through_request_state(void) {
	struct lg_options options;
	lg_options_init(&options);
	options.settle_ms = 100;
	options.commit = lg_commit_request_state;
	struct replay_bed f;
	setup(&f, &options);
	drmModeModeInfo modes[4];
	struct replay_connector *rc = plug_4k(&f, 42, modes);
	struct wlr_output *output = rc->output;
	rc->cascade_khz = 300000;
	replay_lower_link(rc, 540000);
	replay_uevent(&f.replay, 42);
	await(&f, 42, at_rest, LG_LINK_DEGRADED);
	check_int_eq(f.h.requests, 1);
	check_int_eq(f.h.modesets, 3);
	check(committed(&f.h, 1, output, &modes[0]));
	check(committed(&f.h, 2, output, &modes[1]));
	check_in_place(&f, rc);
	check_int_eq(f.h.n_fallbacks, 1);
	check_int_eq(conn_of(&f, 42)->state, LG_LINK_DEGRADED);
	replay_bed_finish(&f);
}

/* Counts the log lines that contain a string, and keeps showing them. */
static const char *log_watch;
static enum lg_log_importance log_watch_importance;
static int log_hits;
static int log_hits_quiet; // below importance

static void watch_log(enum lg_log_importance importance, const char *fmt,
		va_list args) {
	char line[512];
	vsnprintf(line, sizeof(line), fmt, args);
	fprintf(stderr, "%s\n", line);
	if (log_watch == NULL || strstr(line, log_watch) == NULL) {
		return;
	}
	if (importance <= log_watch_importance) {
		log_hits++;
	} else {
		log_hits_quiet++;
	}
}

/* Lines at importance or above that contain text. */
static void watch(const char *text, enum lg_log_importance importance) {
	log_watch = text;
	log_watch_importance = importance;
	log_hits = 0;
	log_hits_quiet = 0;
	lg_log_init(LG_DEBUG, watch_log);
}

/*
 * "link held" is said of a link that runs a mode: after a recovery that
 * held, not after the sink left during one (the unplug ends the incident,
 * state good, with no link to speak of).
 */
static void test_unplug_says_no_link_held(void) {
	struct lg_options options;
	struct replay_bed f;
	setup_settle(&f, &options, 10);
	drmModeModeInfo modes[4];
	struct replay_connector *rc = plug_4k(&f, 42, modes);
	watch("link held", LG_INFO);
	replay_lower_link(rc, 300000);
	replay_uevent(&f.replay, 42);
	harness_dispatch_for(&f.h, 100); // the settle timer
	check_int_eq(conn_of(&f, 42)->state, LG_LINK_DEGRADED);
	check_int_eq(log_hits, 1);
	replay_lower_link(rc, 100000);
	rc->gone_on_probe = true;
	replay_uevent(&f.replay, 42);
	check(!conn_of(&f, 42)->connected);
	check_int_eq(conn_of(&f, 42)->state, LG_LINK_GOOD);
	check_int_eq(log_hits, 1);
	watch(NULL, LG_SILENT);
	replay_bed_finish(&f);
}

/*
 * A retry once linkguard's modeset budget is spent cannot commit: it says
 * so at once, without a forced probe or a test (the bench's recoveries
 * counted the probe of that retry as a recovery's second).
 */
static void test_retry_over_budget_probes_nothing(void) {
	struct lg_options options;
	lg_options_init(&options);
	options.settle_ms = 1;
	options.flap_count = 0; // every BAD is answered
	struct replay_bed f;
	setup(&f, &options);
	drmModeModeInfo modes[4];
	struct replay_connector *rc = plug_4k(&f, 42, modes);
	struct lg_connector *conn = conn_of(&f, 42);
	enum lg_retry_result result = LG_RETRY_COMMITTED;
	int probes = 0, tests = 0;
	// Each round is two modesets: the fallback and the retry's.
	for (int round = 0; round < 12 && result == LG_RETRY_COMMITTED; round++) {
		replay_lower_link(rc, 540000);
		replay_uevent(&f.replay, 42);
		harness_dispatch_for(&f.h, 20); // the settle timer
		rc->link_khz = UINT32_MAX;
		probes = rc->forced_probes;
		tests = rc->mode_tests;
		result = lg_connector_retry(conn);
		harness_dispatch_for(&f.h, 20);
	}
	check_int_eq(result, LG_RETRY_UNAVAILABLE);
	check_int_eq(rc->forced_probes, probes);
	check_int_eq(rc->mode_tests, tests);
	replay_bed_finish(&f);
}

/*
 * A glitch burst: BAD again and again on a link that still carries 4K60,
 * faster than the flapping backoff. Every BAD is answered before wlroots'
 * handler reads link-status, those the backoff paces too, so a client
 * never sees the wl_output go; once quiet, 4K60 runs.
 */
static void test_glitch_burst_keeps_the_output(void) {
	struct lg_options options;
	lg_options_init(&options);
	options.settle_ms = 50;
	options.flap_window_ms = 1000;
	options.backoff_min_ms = 400;
	struct replay_bed f;
	setup(&f, &options);
	struct harness_client client;
	check(harness_client_connect(&client, f.h.display));
	drmModeModeInfo modes[4];
	struct replay_connector *rc = plug_4k(&f, 42, modes);
	harness_client_sync(&client);
	check_int_eq(client.outputs_added, 1);
	watch("link flapping", LG_INFO);
	for (int i = 0; i < 9; i++) {
		rc->link_status = LG_LINK_STATUS_BAD;
		replay_uevent(&f.replay, 42);
		check_int_eq(rc->link_status, LG_LINK_STATUS_GOOD);
		harness_dispatch_for(&f.h, 100);
	}
	check(log_hits >= 2); // stepped down, then paced at the best mode
	await(&f, 42, at_rest, LG_LINK_GOOD);
	harness_client_sync(&client);
	check_int_eq(client.outputs_removed, 0);
	check_int_eq(rc->recreates, 0);
	check(committed(&f.h, f.h.modesets - 1, rc->output, &modes[0]));
	watch(NULL, LG_SILENT);
	harness_client_finish(&client);
	replay_bed_finish(&f);
}

struct reads_awaited {
	const struct replay_connector *rc;
	int reads;
};

static bool read_enough(void *data) {
	const struct reads_awaited *awaited = data;
	return awaited->rc->aux_reads >= awaited->reads;
}

/* Runs the loop until the sink's AUX device was read reads times in all. */
static void await_reads(struct replay_bed *f, const struct replay_connector *rc,
		int reads) {
	struct reads_awaited awaited = { rc, reads };
	check(harness_dispatch_until(&f->h, read_enough, &awaited, 20000));
}

/*
 * No uAPI reports the trained link: the sink's DPCD does, read once the
 * link settled, never between a BAD and the commit that answers it.
 */
static void test_dpcd_gives_the_trained_link(void) {
	struct replay_bed f;
	setup(&f, NULL);
	drmModeModeInfo modes[4];
	struct replay_connector *rc = plug_4k(&f, 42, modes);
	struct lg_connector *conn = conn_of(&f, 42);
	check_int_eq(rc->aux_opens, 1);
	check_int_eq(rc->aux_reads, 0); // the first modeset is training
	await_reads(&f, rc, 4); // the link, status and errors; the caps once
	check(conn->has_sink_status);
	check(conn->has_link_params);
	check_int_eq(conn->link_params.lanes, 4);
	check_int_eq(conn->link_params.rate_mbps, 5400);
	check(lg_sink_status_locked(&conn->sink_status));

	// i915 retrains the same mode at HBR x4 and reports BAD.
	replay_lower_link(rc, 540000);
	replay_dpcd_trained(rc, 0x0a, 4);
	replay_uevent(&f.replay, 42);
	check_int_eq(f.h.modesets, 2);
	check_int_eq(rc->aux_reads, 4); // nothing read at the uevent
	replay_dpcd_set_errors(rc, 1, 0x7fff); // counted since the training
	// Held is the link the sink trained.
	await(&f, 42, at_rest, LG_LINK_GOOD);
	check_int_eq(conn->link_params.rate_mbps, 2700);
	check_int_eq(conn->sink_status.errors[1], 0x7fff);
	check_int_eq(rc->aux_reads, 7);
	// Reading cleared the sink's counter; the valid bit stays.
	check_int_eq(rc->dpcd[0x212], 0);
	check_int_eq(rc->dpcd[0x213], 0x80);

	// The output is recreated (a replug): the device is opened again.
	struct wlr_output *output = rc->output;
	wlr_output_destroy(output);
	check_int_eq(rc->aux_opens, 1);
	replay_plug(rc);
	check_int_eq(rc->aux_opens, 2);
	check_int_eq(rc->aux_closes, 1);
	replay_bed_finish(&f);
	check_int_eq(rc->aux_closes, 2);
}

/*
 * The recovery of test_same_mode_retrained, with the sink's AUX device
 * failing in every way it can: linkguard runs as without DPCD.
 */
static void retrain_without_dpcd(int open_error, int read_error,
		size_t short_by, uint8_t lanes, const char *said,
		enum lg_log_importance importance, int times) {
	struct replay_bed f;
	setup(&f, NULL);
	watch(said, importance);
	drmModeModeInfo modes[2][4];
	struct replay_connector *rc[2];
	for (int i = 0; i < 2; i++) {
		size_t n = replay_monitor_4k(modes[i]);
		rc[i] = replay_add_connector(&f.replay, 42 + (uint32_t)i, modes[i], n);
		rc[i]->aux_open_error = open_error;
		rc[i]->aux_read_error = read_error;
		rc[i]->aux_short_by = short_by;
		rc[i]->dpcd[0x101] = lanes;
		replay_plug(rc[i]);
	}
	for (int i = 0; i < 2; i++) {
		struct lg_connector *conn = conn_of(&f, 42 + (uint32_t)i);
		check(!conn->has_sink_status);
		check(!conn->has_link_params);
		replay_lower_link(rc[i], 540000);
		replay_uevent(&f.replay, 42 + (uint32_t)i);
		check(committed(&f.h, 2 + i, rc[i]->output, &modes[i][0]));
		await(&f, 42 + (uint32_t)i, at_rest, LG_LINK_GOOD);
		check_in_place(&f, rc[i]);
		check(!conn->has_sink_status);
		check_int_eq(rc[i]->aux_opens, open_error != 0 ? 0 : 1);
	}
	check_int_eq(f.h.modesets, 4);
	check_int_eq(log_hits, times);
	watch(NULL, LG_SILENT);
	replay_bed_finish(&f);
}

static void test_dpcd_not_readable_said_once(void) {
	// Once for the device, not per connector or per read.
	retrain_without_dpcd(-EACCES, 0, 0, 4, "DP AUX device not readable",
		LG_INFO, 1);
}

static void test_dpcd_missing_device(void) {
	retrain_without_dpcd(-ENOENT, 0, 0, 4, "no DP AUX device", LG_DEBUG, 2);
}

static void test_dpcd_eio(void) {
	// Said once per connector, at the first failed read of a streak.
	retrain_without_dpcd(0, -EIO, 0, 4, "DPCD read failed: Input/output",
		LG_INFO, 2);
}

static void test_dpcd_short_read(void) {
	retrain_without_dpcd(0, 0, 1, 4, "DPCD read failed: No data", LG_INFO, 2);
}

static void test_dpcd_malformed(void) {
	// LANE_COUNT_SET 3: no DisplayPort link has three lanes.
	// Each read is said at debug: once the first connector's recovery
	// settled (its BAD came before its first modeset had), after the
	// second's first modeset and after its recovery.
	retrain_without_dpcd(0, 0, 0, 3, "DPCD holds no DisplayPort link state",
		LG_DEBUG, 3);
}

/* A transaction past the first fails: the read is short, then an error. */
static void test_dpcd_reply_ends(void) {
	struct replay_bed f;
	setup(&f, NULL);
	drmModeModeInfo modes[4];
	size_t n = replay_monitor_4k(modes);
	struct replay_connector *rc = replay_add_connector(&f.replay, 42, modes, n);
	rc->aux_reply_end = 0x210; // the error counters do not answer
	replay_plug(rc);
	struct lg_connector *conn = conn_of(&f, 42);
	await_reads(&f, rc, 3);
	check(!conn->has_sink_status);
	check_int_eq(rc->aux_reads, 3);
	// A read across 16-byte transactions returns what came before.
	uint8_t buf[32];
	check_int_eq(replay_aux_impl.pread(&f.replay, REPLAY_AUX_FD_BASE, buf,
		sizeof(buf), 0x200), 16);
	rc->aux_reply_end = 0;
	int reads = rc->aux_reads;
	replay_uevent(&f.replay, 42); // link-status GOOD: read once settled
	check_int_eq(rc->aux_reads, reads);
	await_reads(&f, rc, reads + 3);
	check(conn->has_sink_status);
	check_int_eq(conn->link_params.rate_mbps, 5400);
	replay_bed_finish(&f);
}

/*
 * The kernel set link-status BAD; its uevent has not reached us yet: no
 * poll reads the sink meanwhile (the commit that answers it trains).
 */
static void test_no_read_before_a_bad_is_heard(void) {
	struct lg_options options;
	struct replay_bed f;
	setup_polled(&f, &options);
	drmModeModeInfo modes[4];
	struct replay_connector *rc = plug_4k(&f, 42, modes);
	await_reads(&f, rc, 3);
	rc->link_status = LG_LINK_STATUS_BAD;
	int reads = rc->aux_reads;
	harness_dispatch_for(&f.h, 300);
	check_int_eq(rc->aux_reads, reads);
	replay_bed_finish(&f);
}

struct late_commit {
	struct wlr_output *output;
	const drmModeModeInfo *info;
	int reads_before; // the sink's reads when it committed
	const struct replay_connector *rc;
};

/* A compositor's modeset, from a timer of its own. */
static int handle_late_commit(void *data) {
	struct late_commit *late = data;
	late->reads_before = late->rc->aux_reads;
	struct wlr_output_state state;
	wlr_output_state_init(&state);
	wlr_output_state_set_custom_mode(&state, late->info->hdisplay,
		late->info->vdisplay, kms_mode_refresh_mhz(late->info));
	check(wlr_output_commit_state(late->output, &state));
	wlr_output_state_finish(&state);
	return 0;
}

/*
 * The sink's poll and a compositor's modeset fall due in the same dispatch
 * of a loop that was busy, the modeset first. libwayland runs every timer
 * it found due, also one that an earlier callback re-armed: the sink is
 * still not read while the link of that modeset trains (the kernel's
 * harness caught sway doing so 1.5 ms after its enable).
 */
static void test_no_read_right_after_a_modeset(void) {
	struct lg_options options;
	struct replay_bed f;
	setup_settle(&f, &options, 100);
	drmModeModeInfo modes[4];
	struct replay_connector *rc = plug_4k(&f, 42, modes);
	await_reads(&f, rc, 3);
	// The sink's next read is due settle_ms after this modeset; the
	// compositor's next, half of that.
	struct late_commit late = { rc->output, &modes[2], -1, rc };
	struct wl_event_source *timer = wl_event_loop_add_timer(f.h.loop,
		handle_late_commit, &late);
	handle_late_commit(&late);
	wl_event_source_timer_update(timer, (int)options.settle_ms / 2);
	nanosleep(&(struct timespec){ .tv_nsec = 2 * options.settle_ms * 1000000L }, NULL);
	wl_event_loop_dispatch(f.h.loop, 0);
	check_int_eq(f.h.modesets, 3);
	check(committed(&f.h, 2, rc->output, &modes[2]));
	check_int_eq(rc->aux_reads, late.reads_before);
	// Read once that link settled.
	await_reads(&f, rc, late.reads_before + 3);
	wl_event_source_remove(timer);
	replay_bed_finish(&f);
}

static int ticks;

static int tick(void *data) {
	struct wl_event_source **ticker = data;
	ticks++;
	wl_event_source_timer_update(*ticker, 10);
	return 0;
}

/*
 * A sink whose AUX device never answers (a dock that hung): a read costs
 * the loop one deadline at most and is cancelled there (no AUX traffic
 * goes on behind it), said once; the machine tries again less and less
 * often; the event loop runs on between them.
 */
static void test_hung_aux_costs_one_timeout(void) {
	struct lg_options options;
	struct replay_bed f;
	setup_polled(&f, &options);
	f.device->aux_timeout_ms = 100;
	watch("DPCD read", LG_INFO);
	drmModeModeInfo modes[4];
	size_t n = replay_monitor_4k(modes);
	struct replay_connector *rc = replay_add_connector(&f.replay, 42, modes, n);
	rc->aux_hangs = true;
	replay_plug(rc);
	ticks = 0;
	struct wl_event_source *ticker = wl_event_loop_add_timer(f.h.loop, tick,
		&ticker);
	wl_event_source_timer_update(ticker, 10);
	harness_dispatch_for(&f.h, 2000);
	wl_event_source_remove(ticker);
	check(ticks >= 50); // every 10 ms: 170 on an idle machine
	// Read 50 ms after the plug, then 300 ms after that read ended (6
	// polls): each hung 100 ms; the second backed the device off.
	check_int_eq(rc->aux_reads, 2);
	check_int_eq(log_hits, 1); // "not answered in 100 ms"
	check_int_eq(log_hits_quiet, 1); // the same, at debug
	check(!conn_of(&f, 42)->has_sink_status);
	check_int_eq(f.h.modesets, 1);
	watch(NULL, LG_SILENT);
	replay_bed_finish(&f);
	check_int_eq(rc->aux_closes, 1);
}

/*
 * The sink is read every sink_poll_ms for 12 polls after a change, then
 * every 6; a failing read waits twice as long each time. Upper bounds
 * only: a loaded machine runs the timers late, never early.
 */
static void polled_less(int read_error, int most_reads) {
	struct lg_options options;
	struct replay_bed f;
	setup_polled(&f, &options);
	drmModeModeInfo modes[4];
	size_t n = replay_monitor_4k(modes);
	struct replay_connector *rc = replay_add_connector(&f.replay, 42, modes, n);
	rc->aux_read_error = read_error;
	replay_plug(rc);
	harness_dispatch_for(&f.h, 2000);
	// Reading every 50 ms, 40 reads in these 2 s.
	int reads = rc->aux_reads / (read_error != 0 ? 1 : 3);
	check(reads >= 2);
	check(reads <= most_reads);
	replay_bed_finish(&f);
}

static void test_quiet_link_polled_less(void) {
	// 12 in the first 600 ms, 5 in the 1.4 s after.
	polled_less(0, 12 + 5);
}

/*
 * AUX reads that fail twice in a row: the second waits 6 polls, and the
 * sink's AUX device is not read again, said once.
 */
static void test_failing_reads_back_off(void) {
	struct lg_options options;
	struct replay_bed f;
	setup_polled(&f, &options);
	watch("not read again while the compositor runs", LG_INFO);
	drmModeModeInfo modes[4];
	size_t n = replay_monitor_4k(modes);
	struct replay_connector *rc = replay_add_connector(&f.replay, 42, modes, n);
	rc->aux_read_error = -EIO;
	replay_plug(rc);
	harness_dispatch_for(&f.h, 1000);
	check_int_eq(rc->aux_reads, 2);
	check_int_eq(log_hits, 1);
	// Not after an event either, nor once the sink would answer again.
	rc->aux_read_error = 0;
	replay_uevent(&f.replay, 42);
	harness_dispatch_for(&f.h, 1000);
	check_int_eq(rc->aux_reads, 2);
	check_int_eq(log_hits, 1);
	check(!conn_of(&f, 42)->has_sink_status);
	watch(NULL, LG_SILENT);
	replay_bed_finish(&f);
}

/* A bed polled every 50 ms on a device whose kernel driver is driver. */
static void setup_driver(struct replay_bed *f, struct lg_options *options,
		const char *driver) {
	setup_polled(f, options);
	f->replay.driver = driver;
	drm_device_read_driver(f->device);
}

/* Runs the loop for 12 of the bed's polls. */
static void twelve_polls(struct replay_bed *f, const struct lg_options *options) {
	harness_dispatch_for(&f->h, 12 * (int)options->sink_poll_ms);
}

/*
 * i915 reports a failed link and retrains a lost lock itself: its sink is
 * read once the link settled after each event (the trained link), never
 * polled; polled once the kernel stopped retraining it.
 */
static void test_i915_read_at_events_only(void) {
	struct lg_options options;
	struct replay_bed f;
	setup_polled(&f, &options);
	watch("driver i915: sinks read once settled after events", LG_INFO);
	f.replay.driver = "i915";
	drm_device_read_driver(f.device);
	check_int_eq(log_hits, 1);
	drmModeModeInfo modes[4];
	struct replay_connector *rc = plug_4k(&f, 42, modes);
	// A status read is three AUX reads; the output's first also reads the
	// sink's capabilities (choose_link), one more, once.
	await_reads(&f, rc, 4);
	twelve_polls(&f, &options);
	check_int_eq(rc->aux_reads, 4);
	check_int_eq(conn_of(&f, 42)->link_params.rate_mbps, 5400);
	// A hotplug event (GOOD): read once its link settled, no more.
	replay_uevent(&f.replay, 42);
	await_reads(&f, rc, 7);
	twelve_polls(&f, &options);
	check_int_eq(rc->aux_reads, 7);
	// A modeset the kernel trained a lower link for: read once settled.
	replay_lower_link(rc, 540000);
	replay_dpcd_trained(rc, 0x0a, 4);
	replay_uevent(&f.replay, 42);
	await(&f, 42, at_rest, LG_LINK_GOOD);
	await_reads(&f, rc, 10);
	twelve_polls(&f, &options);
	check_int_eq(rc->aux_reads, 10);
	check_int_eq(conn_of(&f, 42)->link_params.rate_mbps, 2700);
	// The kernel gave up retraining: what it no longer does, polls do.
	rc->retrain_disabled = "yes\n";
	replay_uevent(&f.replay, 42);
	await_reads(&f, rc, 13 + 3 * 3);
	watch(NULL, LG_SILENT);
	replay_bed_finish(&f);
}

/* amdgpu reports neither a failed link nor a lost lock: polled. */
static void test_amdgpu_polled(void) {
	struct lg_options options;
	struct replay_bed f;
	setup_driver(&f, &options, "amdgpu");
	drmModeModeInfo modes[4];
	struct replay_connector *rc = plug_4k(&f, 42, modes);
	await_reads(&f, rc, 3);
	// The read once settled and at least three polls after it.
	await_reads(&f, rc, 4 * 3);
	replay_bed_finish(&f);
}

/*
 * An internal panel (eDP) on a polled driver: no read after the first
 * modeset, a hotplug event or polls, unless read-dpcd is on.
 */
static void edp_reads(const char *setting, bool read) {
	struct lg_options options;
	struct replay_bed f;
	const char *settings[] = { setting, NULL };
	lg_options_init(&options);
	options.settle_ms = 50;
	options.sink_poll_ms = 50;
	options.settings = setting != NULL ? settings : NULL;
	setup(&f, &options);
	f.replay.driver = "amdgpu";
	drm_device_read_driver(f.device);
	drmModeModeInfo modes[4];
	size_t n = replay_monitor_4k(modes);
	struct replay_connector *rc = replay_add_connector(&f.replay, 42, modes, n);
	rc->type = DRM_MODE_CONNECTOR_eDP;
	replay_plug(rc);
	if (read) {
		await_reads(&f, rc, 4 * 3);
	} else {
		twelve_polls(&f, &options);
		replay_uevent(&f.replay, 42);
		twelve_polls(&f, &options);
		check_int_eq(rc->aux_reads, 0);
		check(!conn_of(&f, 42)->has_sink_status);
	}
	replay_bed_finish(&f);
}

static void test_edp_never_read(void) {
	edp_reads(NULL, false);
	edp_reads("read-dpcd=auto", false);
}

static void test_edp_read_when_configured(void) {
	edp_reads("read-dpcd=on", true);
}

static char config_dir[] = "/tmp/lg-replay-XXXXXX";
static char config_file[sizeof(config_dir) + 16];

static void write_config(const char *text) {
	FILE *file = fopen(config_file, "w");
	check(file != NULL);
	if (file != NULL) {
		fputs(text, file);
		fclose(file);
	}
}

/*
 * linkguard(5)'s opt-outs: a device's every connector, a monitor on
 * whichever connector; the others are read as before.
 */
static void test_opt_out_per_device(void) {
	struct lg_options options;
	struct replay_bed f;
	// The replayed GPU is 226:0.
	write_config("[device card0]\nread-dpcd = off\n[device card1]\n"
		"read-dpcd = on\n");
	lg_options_init(&options);
	options.settle_ms = 50;
	options.sink_poll_ms = 50;
	options.config_path = config_file;
	setup(&f, &options);
	drmModeModeInfo modes[4];
	struct replay_connector *rc = plug_4k(&f, 42, modes);
	twelve_polls(&f, &options);
	replay_uevent(&f.replay, 42);
	twelve_polls(&f, &options);
	check_int_eq(rc->aux_reads, 0);
	// Another device's section does not apply.
	write_config("[device card1]\nread-dpcd = off\n");
	check(lg_manager_reload_config(f.h.manager));
	replay_uevent(&f.replay, 42);
	await_reads(&f, rc, 2 * 3);
	replay_bed_finish(&f);
}

static void test_opt_out_per_monitor(void) {
	struct lg_options options;
	struct replay_bed f;
	write_config("");
	lg_options_init(&options);
	options.settle_ms = 50;
	options.sink_poll_ms = 50;
	options.config_path = config_file;
	setup(&f, &options);
	drmModeModeInfo modes[2][4];
	struct replay_connector *rc[2];
	static const char *const serials[] = { "ABC123", "DEF456" };
	for (int i = 0; i < 2; i++) {
		size_t n = replay_monitor_4k(modes[i]);
		rc[i] = replay_add_connector(&f.replay, 42 + (uint32_t)i, modes[i], n);
		rc[i]->serial = serials[i];
		replay_plug(rc[i]);
		await_reads(&f, rc[i], 3);
	}
	// The monitor on 42 opts out; the one on 43 (another serial) does not.
	const char *id = connector_identity(conn_of(&f, 42));
	check(id != NULL && strcmp(id, "DEL-A0B1-ABC123") == 0);
	char text[256];
	snprintf(text, sizeof(text), "[monitor %s]\nread-dpcd = off\n", id);
	write_config(text);
	check(lg_manager_reload_config(f.h.manager));
	int reads = rc[0]->aux_reads, other = rc[1]->aux_reads;
	replay_uevent(&f.replay, 42);
	replay_uevent(&f.replay, 43);
	twelve_polls(&f, &options);
	check_int_eq(rc[0]->aux_reads, reads);
	check(rc[1]->aux_reads >= other + 3 * 3);
	replay_bed_finish(&f);
}

static bool polled(void *data) {
	const struct replay_connector *rc = data;
	return rc->aux_reads > 3;
}

/*
 * The sink loses the link, the driver says nothing (no BAD, no uevent):
 * backend/drm's DPCD reads find it and the same mode is retrained in place.
 * Committed again with link-status GOOD it would be no modeset: its CRTC
 * goes off first (DPMS), unseen by the compositor; where that fails, the
 * output goes off and on through wlroots.
 */
static void dark_link_retrained(bool blank_fails) {
	struct lg_options options;
	lg_options_init(&options);
	options.settle_ms = 100;
	options.sink_poll_ms = 100;
	options.sink_settle_ms = 200;
	struct replay_bed f;
	setup(&f, &options);
	drmModeModeInfo modes[4];
	struct replay_connector *rc = plug_4k(&f, 42, modes);
	struct wlr_output *output = rc->output;
	harness_dispatch_until(&f.h, polled, rc, 20000);
	check(rc->aux_reads > 3); // read after the modeset and every 100 ms
	check_int_eq(f.h.modesets, 1);
	rc->blank_fails = blank_fails;
	replay_dpcd_unlock(rc);
	await(&f, 42, left, LG_LINK_GOOD); // the unlock, seen
	await(&f, 42, at_rest, LG_LINK_GOOD);
	int off = blank_fails ? 1 : 0;
	check_int_eq(rc->blanks, 1 - off);
	check_int_eq(f.h.modesets, 2 + off);
	check(!blank_fails || (f.h.modesets == 3 && !f.h.commits[1].enabled));
	check(committed(&f.h, 1 + off, output, &modes[0]));
	check_int_eq(rc->forced_probes, 0);
	check_in_place(&f, rc);
	struct lg_connector *conn = conn_of(&f, 42);
	check(conn->has_sink_status && lg_sink_status_locked(&conn->sink_status));
	check_int_eq(conn->state, LG_LINK_GOOD);
	check_int_eq(f.h.n_fallbacks, 0);
	replay_bed_finish(&f);
}

static void test_dark_link_retrained(void) {
	dark_link_retrained(false);
}

static void test_dark_link_retrained_off_and_on_without_dpms(void) {
	dark_link_retrained(true);
}

/*
 * The oracle of choose_link, from DisplayPort's formulas, not the code
 * under test: an 8b/10b lane carries 8 of every 10 bits of its rate, and
 * a mode needs its pixel clock times its bits per pixel. i915 tries bpp
 * from max bpc x 3 down to 18 in steps of 6; at each, the lowest common
 * rate, then the fewest lanes, within its maximum.
 */
static struct lg_link_params oracle_link(const drmModeModeInfo *info,
		uint32_t max_bpc, const uint32_t *rates, size_t n_rates,
		struct lg_link_params max) {
	for (uint32_t bpp = max_bpc * 3 / 6 * 6; bpp >= 18; bpp -= 6) {
		uint64_t need_kbps = (uint64_t)info->clock * bpp;
		for (size_t i = 0; i < n_rates && rates[i] <= max.rate_mbps; i++) {
			for (uint32_t lanes = 1; lanes <= max.lanes; lanes *= 2) {
				uint64_t payload_kbps = (uint64_t)rates[i] * 1000 * lanes * 8 / 10;
				if (need_kbps <= payload_kbps) {
					return (struct lg_link_params){ lanes, rates[i] };
				}
			}
		}
	}
	return (struct lg_link_params){0};
}

static const uint32_t rates_to_hbr2[] = { 1620, 2700, 5400 };
static const uint32_t rates_to_hbr3[] = { 1620, 2700, 5400, 8100 };

#define N_RATES(rates) (sizeof(rates) / sizeof(rates[0]))
#define LINK(lanes, rate_mbps) ((struct lg_link_params){ (lanes), (rate_mbps) })

/* choose_link's answer for info is want (lanes 0: the kernel trains it not). */
static void check_link(struct lg_connector *conn, const drmModeModeInfo *info,
		struct lg_link_params want) {
	struct lg_mode mode = kms_mode_to_lg(info);
	struct lg_link_params got = {0};
	check(conn->impl->choose_link != NULL);
	bool ok = conn->impl->choose_link != NULL &&
		conn->impl->choose_link(conn, &mode, &got);
	if (ok != (want.lanes != 0) || (ok && (got.lanes != want.lanes ||
			got.rate_mbps != want.rate_mbps))) {
		fprintf(stderr, "  %ux%u (%u kHz): got %s %ux%u, want %ux%u\n",
			info->hdisplay, info->vdisplay, info->clock, ok ? "" : "none",
			got.rate_mbps, got.lanes, want.rate_mbps, want.lanes);
		check(false);
	}
}

/* Every mode of the 4K monitor against the oracle within max. */
static void check_links(struct lg_connector *conn, const drmModeModeInfo modes[4],
		uint32_t max_bpc, const uint32_t *rates, size_t n_rates,
		struct lg_link_params max) {
	for (int i = 0; i < 4; i++) {
		check_link(conn, &modes[i], oracle_link(&modes[i], max_bpc, rates,
			n_rates, max));
	}
}

/* i915's debugfs, as a directory of the test's (kms_debugfs_read reads it). */
static void debugfs_init(struct replay *replay) {
	snprintf(replay->debugfs, sizeof(replay->debugfs), "/tmp/lg-debugfs-XXXXXX");
	if (mkdtemp(replay->debugfs) == NULL) {
		perror("mkdtemp");
		exit(1);
	}
}

static void write_text(const char *dir, const char *file, const char *text) {
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", dir, file);
	FILE *f = fopen(path, "w");
	if (f == NULL || fputs(text, f) < 0) {
		perror(path);
		exit(1);
	}
	fclose(f);
}

/* The files i915 shows for the connector called name on card0. */
static void debugfs_write(struct replay *replay, const char *name,
		const char *rate, const char *lanes) {
	char dir[256];
	snprintf(dir, sizeof(dir), "%s/dri", replay->debugfs);
	mkdir(dir, 0755);
	snprintf(dir, sizeof(dir), "%s/dri/0", replay->debugfs);
	mkdir(dir, 0755);
	snprintf(dir, sizeof(dir), "%s/dri/0/%s", replay->debugfs, name);
	mkdir(dir, 0755);
	write_text(dir, "i915_dp_max_link_rate", rate);
	write_text(dir, "i915_dp_max_lane_count", lanes);
}

static void debugfs_finish(struct replay *replay) {
	char cmd[256];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", replay->debugfs);
	if (system(cmd) != 0) {
		fprintf(stderr, "cannot remove %s\n", replay->debugfs);
	}
}

/*
 * The 4K monitor on a sink of caps_bw x caps_lanes, with max bpc, plugged;
 * read once (the link, the status, the errors, then the capabilities).
 */
static struct replay_connector *plug_sink(struct replay_bed *f,
		drmModeModeInfo modes[4], uint8_t caps_bw, uint8_t caps_lanes,
		uint32_t max_bpc) {
	size_t n = replay_monitor_4k(modes);
	struct replay_connector *rc = replay_add_connector(&f->replay, 42, modes, n);
	replay_dpcd_caps(rc, caps_bw, caps_lanes);
	rc->max_bpc = max_bpc;
	replay_plug(rc);
	return rc;
}

/*
 * i915 says its maximum in debugfs: the link is chosen within it, not
 * within the smallest that keeps the listed modes (HBR3 x2 here, where
 * 4K60 would run at 24 bpp). After a fallback, within the lowered one.
 */
static void test_choose_link_i915(void) {
	struct replay_bed f;
	setup(&f, NULL);
	debugfs_init(&f.replay);
	watch("as the driver says", LG_INFO);
	drmModeModeInfo modes[4];
	struct replay_connector *rc = plug_sink(&f, modes, 0x1e, 4, 10); // HBR3 x4
	struct lg_connector *conn = conn_of(&f, 42);
	debugfs_write(&f.replay, rc->name, "540000\n", "4\n");
	await_reads(&f, rc, 4);
	check(conn->has_sink_status);
	// By hand, at 30 bpp: 4K60 needs 15.9975 Gbit/s, HBR2 x4 carries
	// 17.28; 4K30 7.8825 and 1440p60 7.245, HBR x4 8.64; 1080p60 4.455,
	// RBR x4 5.184.
	check_link(conn, &modes[0], LINK(4, 5400));
	check_link(conn, &modes[1], LINK(4, 2700));
	check_link(conn, &modes[2], LINK(4, 2700));
	check_link(conn, &modes[3], LINK(4, 1620));
	check_links(conn, modes, 10, rates_to_hbr3, N_RATES(rates_to_hbr3),
		LINK(4, 5400));
	check_int_eq(log_hits, 1); // HBR2 x4

	// Training at HBR2 x4 failed twice: i915 lowers to HBR x4, says BAD.
	debugfs_write(&f.replay, rc->name, "270000\n", "4\n");
	replay_dpcd_trained(rc, 0x0a, 4);
	replay_lower_link(rc, 300000);
	replay_uevent(&f.replay, 42);
	check(committed(&f.h, 1, rc->output, &modes[1]));
	// 4K60 fits HBR x4 at no bpp (9.5985 Gbit/s at 18 > 8.64).
	check_link(conn, &modes[0], (struct lg_link_params){0});
	check_links(conn, modes, 10, rates_to_hbr3, N_RATES(rates_to_hbr3),
		LINK(4, 2700));
	check_int_eq(log_hits, 2);
	watch(NULL, LG_SILENT);
	debugfs_finish(&f.replay);
	replay_bed_finish(&f);
}

/*
 * amdgpu says no maximum: the smallest of the sink's links that keeps
 * every listed mode at 18 bpp, said to be inferred. 4K60 needs 9.5985
 * Gbit/s there: HBR2 x4 (17.28); pruned to 4K30 (4.7295): RBR x4 (5.184).
 * A kernel that lists nothing trains nothing.
 */
static void test_choose_link_amdgpu_inferred(void) {
	struct replay_bed f;
	setup(&f, NULL);
	watch("inferred", LG_INFO);
	drmModeModeInfo modes[4];
	struct replay_connector *rc = plug_sink(&f, modes, 0x14, 4, 8); // HBR2 x4
	struct lg_connector *conn = conn_of(&f, 42);
	await_reads(&f, rc, 4);
	// By hand, at 24 bpp: 4K60 12.798 Gbit/s, HBR2 x4; 4K30 6.306 and
	// 1440p60 5.796, HBR x4; 1080p60 3.564, RBR x4.
	check_link(conn, &modes[0], LINK(4, 5400));
	check_link(conn, &modes[1], LINK(4, 2700));
	check_link(conn, &modes[2], LINK(4, 2700));
	check_link(conn, &modes[3], LINK(4, 1620));
	check_links(conn, modes, 8, rates_to_hbr2, N_RATES(rates_to_hbr2),
		LINK(4, 5400));
	check(log_hits >= 1);
	int said = log_hits;

	replay_dpcd_trained(rc, 0x06, 4);
	replay_lower_link(rc, 300000);
	replay_uevent(&f.replay, 42);
	check(committed(&f.h, 1, rc->output, &modes[1]));
	check_link(conn, &modes[1], LINK(4, 1620)); // at 18 bpp
	check_links(conn, modes, 8, rates_to_hbr2, N_RATES(rates_to_hbr2),
		LINK(4, 1620));
	check_int_eq(log_hits, said + 1); // "RBR x4, inferred"

	replay_lower_link(rc, 100000);
	replay_uevent(&f.replay, 42);
	check_int_eq(f.h.n_failed, 1);
	check_link(conn, &modes[3], (struct lg_link_params){0});
	watch(NULL, LG_SILENT);
	replay_bed_finish(&f);
}

/*
 * The inferred maximum is too low (HBR3 x2 keeps the listed modes; the
 * kernel has HBR3 x4): the sink reports 4K60 trained at HBR2 x4 (30 bpp),
 * not the HBR3 x2 predicted. That mode is then chosen as read, and the
 * maximum covers what was read: every mode as within HBR3 x4. Said at
 * debug, once.
 */
static void test_choose_link_read_back_corrects(void) {
	struct replay_bed f;
	setup(&f, NULL);
	watch("trained at HBR2 x4, predicted HBR3 x2", LG_DEBUG);
	drmModeModeInfo modes[4];
	struct replay_connector *rc = plug_sink(&f, modes, 0x1e, 4, 10);
	struct lg_connector *conn = conn_of(&f, 42);
	await_reads(&f, rc, 4);
	check_int_eq(log_hits, 1);
	check_link(conn, &modes[0], LINK(4, 5400));
	// 4K30 within HBR3 x2 would be HBR2 x2; within HBR3 x4, HBR x4.
	check_link(conn, &modes[1], LINK(4, 2700));
	check_links(conn, modes, 10, rates_to_hbr3, N_RATES(rates_to_hbr3),
		LINK(4, 8100));
	await_reads(&f, rc, 7);
	check_int_eq(log_hits, 1);
	watch(NULL, LG_SILENT);
	replay_bed_finish(&f);
}

/*
 * The sink's capabilities unusable: any 8b/10b rate and four lanes, said
 * once; the link still chosen, within the smallest that keeps the listed
 * modes: HBR3 x2 (12.96 Gbit/s for 4K60's 9.5985 at 18 bpp), as the
 * kernel trained it.
 */
static void choose_link_without_caps(uint32_t fail_below, uint8_t caps_lanes,
		const char *said) {
	struct replay_bed f;
	setup(&f, NULL);
	watch(said, LG_INFO);
	drmModeModeInfo modes[4];
	size_t n = replay_monitor_4k(modes);
	struct replay_connector *rc = replay_add_connector(&f.replay, 42, modes, n);
	replay_dpcd_caps(rc, 0x14, caps_lanes);
	replay_dpcd_trained(rc, 0x1e, 2);
	rc->aux_fail_below = fail_below;
	rc->max_bpc = 8;
	replay_plug(rc);
	struct lg_connector *conn = conn_of(&f, 42);
	await_reads(&f, rc, 4);
	check(conn->has_sink_status);
	check_int_eq(log_hits, 1);
	check_link(conn, &modes[0], LINK(2, 8100)); // 12.798 at 24 bpp
	check_link(conn, &modes[3], LINK(2, 2700)); // 3.564: HBR x2 4.32
	check_links(conn, modes, 8, rates_to_hbr3, N_RATES(rates_to_hbr3),
		LINK(2, 8100));
	await_reads(&f, rc, 7);
	check_int_eq(log_hits, 1);
	watch(NULL, LG_SILENT);
	replay_bed_finish(&f);
}

static void test_choose_link_caps_unreadable(void) {
	choose_link_without_caps(0x100, 4, "capabilities are not readable");
}

static void test_choose_link_caps_zero_lanes(void) {
	choose_link_without_caps(0, 0, "hold no DisplayPort rate and lane count");
}

/* debugfs with contents i915 never writes: inferred instead, said once. */
static void test_choose_link_debugfs_garbage(void) {
	struct replay_bed f;
	setup(&f, NULL);
	debugfs_init(&f.replay);
	watch("i915_dp_max_link_rate: Invalid argument", LG_INFO);
	drmModeModeInfo modes[4];
	struct replay_connector *rc = plug_sink(&f, modes, 0x14, 4, 8);
	struct lg_connector *conn = conn_of(&f, 42);
	debugfs_write(&f.replay, rc->name, "270000 kHz\n", "4\n");
	await_reads(&f, rc, 4);
	check_links(conn, modes, 8, rates_to_hbr2, N_RATES(rates_to_hbr2),
		LINK(4, 5400));
	check_int_eq(log_hits, 1);
	// Read again after BAD: the same failure, not said again.
	rc->link_status = LG_LINK_STATUS_BAD;
	replay_uevent(&f.replay, 42);
	check_links(conn, modes, 8, rates_to_hbr2, N_RATES(rates_to_hbr2),
		LINK(4, 5400));
	check_int_eq(log_hits, 1);
	watch(NULL, LG_SILENT);
	debugfs_finish(&f.replay);
	replay_bed_finish(&f);
}

/* The libdrm side's reader, on a card of the test's. */
struct debugfs_card {
	const char *root;
	dev_t card;
};

static ssize_t card_read_debugfs(void *data, const char *conn_name,
		const char *file, char *buf, size_t size) {
	const struct debugfs_card *card = data;
	return kms_debugfs_read(card->root, card->card, conn_name, file, buf, size);
}

static const struct kms_impl card_kms_impl = { .read_debugfs = card_read_debugfs };

/* What i915's files may hold, read as the libdrm side reads them. */
static void test_debugfs_contents(void) {
	struct replay replay;
	debugfs_init(&replay);
	const struct {
		const char *rate, *lanes;
		int ret;
	} cases[] = {
		{ "270000\n", "4\n", 0 },
		{ "1000000\n", "2\n", 0 }, // UHBR10
		{ "270000", "1", 0 }, // no newline
		{ "", "4\n", -EINVAL },
		{ "fast\n", "4\n", -EINVAL },
		{ "-270000\n", "4\n", -EINVAL },
		{ "270001\n", "4\n", -EINVAL }, // not a rate in 10 kbit/s steps
		{ "100\n", "4\n", -EINVAL }, // below RBR
		{ "99999999999999999999999\n", "4\n", -EINVAL },
		{ "270000\n", "0\n", -EINVAL },
		{ "270000\n", "3\n", -EINVAL },
		{ "270000\n\n", "4\n", -EINVAL },
	};
	const struct lg_link_params want[] = { LINK(4, 2700), LINK(2, 10000),
		LINK(1, 2700) };
	struct debugfs_card card0 = { replay.debugfs, makedev(226, 0) },
		card1 = { replay.debugfs, makedev(226, 1) };
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		debugfs_write(&replay, "DP-1", cases[i].rate, cases[i].lanes);
		struct lg_link_params max = {0};
		int ret = kms_link_max_read(&card_kms_impl, &card0, "DP-1", &max);
		if (ret != cases[i].ret) {
			fprintf(stderr, "  case %zu: %d, want %d\n", i, ret, cases[i].ret);
		}
		check_int_eq(ret, cases[i].ret);
		if (ret == 0) {
			check_int_eq(max.lanes, want[i].lanes);
			check_int_eq(max.rate_mbps, want[i].rate_mbps);
		}
	}
	struct lg_link_params max;
	check_int_eq(kms_link_max_read(&card_kms_impl, &card0, "DP-2", &max), -ENOENT);
	check_int_eq(kms_link_max_read(&card_kms_impl, &card1, "DP-1", &max), -ENOENT);
	debugfs_finish(&replay);
}

int main(void) {
	run_test(test_same_mode_retrained);
	run_test(test_pruned_mode_falls_back_in_place);
	run_test(test_link_status_read_once);
	run_test(test_bare_hotplug_touches_only_bad);
	run_test(test_mst_three_bad_at_once);
	run_test(test_disconnected_at_probe);
	run_test(test_unplug_says_no_link_held);
	run_test(test_probe_returns_no_mode);
	run_test(test_missing_property);
	run_test(test_cascade);
	run_test(test_cascade_after_a_stall);
	run_test(test_no_read_right_after_a_modeset);
	run_test(test_hung_aux_costs_one_timeout);
	run_test(test_session_inactive);
	run_test(test_recreate_gets_recommendation);
	run_test(test_fallback_through_request_state);
	run_test(test_retry_over_budget_probes_nothing);
	run_test(test_glitch_burst_keeps_the_output);
	run_test(test_dpcd_gives_the_trained_link);
	run_test(test_dpcd_not_readable_said_once);
	run_test(test_dpcd_missing_device);
	run_test(test_dpcd_eio);
	run_test(test_dpcd_short_read);
	run_test(test_dpcd_malformed);
	run_test(test_dpcd_reply_ends);
	run_test(test_no_read_before_a_bad_is_heard);
	run_test(test_quiet_link_polled_less);
	run_test(test_failing_reads_back_off);
	run_test(test_i915_read_at_events_only);
	run_test(test_amdgpu_polled);
	run_test(test_edp_never_read);
	run_test(test_edp_read_when_configured);
	if (mkdtemp(config_dir) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(config_file, sizeof(config_file), "%s/config", config_dir);
	run_test(test_opt_out_per_device);
	run_test(test_opt_out_per_monitor);
	unlink(config_file);
	rmdir(config_dir);
	run_test(test_dark_link_retrained);
	run_test(test_dark_link_retrained_off_and_on_without_dpms);
	run_test(test_choose_link_i915);
	run_test(test_choose_link_amdgpu_inferred);
	run_test(test_choose_link_read_back_corrects);
	run_test(test_choose_link_caps_unreadable);
	run_test(test_choose_link_caps_zero_lanes);
	run_test(test_choose_link_debugfs_garbage);
	run_test(test_debugfs_contents);
	return test_failures == 0 ? 0 : 1;
}
