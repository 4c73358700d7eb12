/*
 * The shortest path back (linkguard-recovery(7), P3, P4, P7, P8): the
 * scenario files tests/scenarios/shortest-*.scn on the full headless stack.
 * What a person sees is judged against the DisplayPort formulas of the
 * oracle (tests/machine/oracle.c), never against the ranking or link choice
 * of the code under test.
 */
#include <string.h>
#include <time.h>
#include <linkguard/connector.h>
#include <core/history.h>
#include <core/recovery.h>
#include <sim/sink.h>
#include "harness.h"
#include "machine/oracle.h"
#include "test.h"

/* Options scaled down from the defaults (flap window 10 s, backoff 1 s to 60 s). */
#define WINDOW_MS 3000
/* A bound on waits, never a figure the tests assert (P4's is checked on a virtual clock). */
#define MAX_WAIT_MS 60000

static void scaled_options(struct lg_options *options) {
	lg_options_init(options);
	options->settle_ms = 150;
	options->flap_window_ms = WINDOW_MS;
	options->backoff_min_ms = 300;
	options->backoff_max_ms = 18000;
}

static int committed(const struct harness *h) {
	return h->modesets < HARNESS_MAX_EVENTS ? h->modesets : HARNESS_MAX_EVENTS;
}

/* kB/s of the link i915 trains mode at on the 4k60 sink's full link. */
static double trained_kBps(const struct lg_mode *mode) {
	const struct sim_sink *sink = sim_sink_find("4k60");
	const struct lg_link_params max = { sink->max_lanes, sink->max_rate_mbps };
	struct lg_link_params link;
	if (!oracle_train_link(mode, sink->max_bpc, &max, &link)) {
		return 0;
	}
	return oracle_link_kBps(&link);
}

static double pixels_per_second(const struct lg_mode *mode) {
	return (double)mode->width * mode->height * mode->refresh_mhz;
}

/* Distinct modes committed, the 4K60 the compositor started at included. */
static int distinct_modes(const struct harness *h) {
	int distinct = 0;
	for (int i = 0; i < committed(h); i++) {
		const struct harness_commit *c = &h->commits[i];
		bool seen = false;
		for (int j = 0; j < i && !seen; j++) {
			seen = h->commits[j].width == c->width &&
				h->commits[j].height == c->height &&
				h->commits[j].refresh_mhz == c->refresh_mhz;
		}
		distinct += !seen;
	}
	return distinct;
}

static bool at_4k60_good(void *data) {
	const struct lg_connector *conn = data;
	return conn->state == LG_LINK_GOOD && conn->has_current &&
		harness_mode_is(&conn->current, 3840, 2160, 60) &&
		conn->link_status == LG_LINK_STATUS_GOOD && recovery_idle(conn);
}

/*
 * Runs file and the event loop until DP-1 is back at 4K60, good and idle;
 * then for two flap windows more, in which nothing may move (P8).
 */
static struct harness_connector *run_burst(struct harness *h, const char *file) {
	check(harness_run_file(h, file, 0));
	struct harness_connector *hc = harness_connector(h, "DP-1");
	check(hc != NULL);
	if (hc == NULL) {
		return NULL;
	}
	check(harness_dispatch_until(h, at_4k60_good, hc->conn, MAX_WAIT_MS)); // P4
	int modesets = h->modesets;
	harness_dispatch_for(h, 2 * WINDOW_MS);
	check_int_eq(h->modesets, modesets);
	// P7: the return to 4K60, and one more if it fails.
	check(harness_commits_after(h, NULL, harness_last_fault_usec(h)) <= 2);
	return hc;
}

/*
 * 1. A glitch burst walked the mode list down to 640x480 and back up one
 * mode per quiet period; after it, a healthy link dropped to 640x480 again.
 */
static void test_burst_back_to_best_in_one_modeset(void) {
	struct lg_options options;
	scaled_options(&options);
	struct harness h;
	check(harness_init(&h, &options));
	run_burst(&h, SCENARIO_DIR "/shortest-1-glitch-burst.scn");
	check(distinct_modes(&h) <= 2); // one step down, 4K60 included
	for (int i = 0; i < committed(&h); i++) {
		check(h.commits[i].width > 640);
	}
	check_int_eq(h.outputs_destroyed, 0);
	harness_finish(&h);
}

/*
 * 2. A flapping step down lowered only the pixel clock (4K60 -> 4K30, both
 * HBR2 x4), and kept stepping down while the link flapped as much.
 */
static void test_step_down_lowers_the_link(void) {
	struct lg_options options;
	scaled_options(&options);
	struct harness h;
	check(harness_init(&h, &options));
	run_burst(&h, SCENARIO_DIR "/shortest-2-step-down-lowers-link.scn");
	int steps_down = 0;
	uint64_t stepped_down = 0;
	for (int i = 0; i < h.n_fallbacks && i < HARNESS_MAX_EVENTS; i++) {
		const struct lg_fallback *f = &h.fallbacks[i];
		if (f->reason != LG_FALLBACK_FLAPPING) {
			continue;
		}
		steps_down++;
		stepped_down = (uint64_t)f->when.tv_sec * 1000000 + (uint64_t)f->when.tv_nsec / 1000;
		// P3: the link i915 trains for it is lower, not only the clock.
		check(trained_kBps(&f->to) > 0);
		check(trained_kBps(&f->to) < trained_kBps(&f->from));
	}
	check_int_eq(steps_down, 1);
	// It flapped as much at the lower link: back at 4K60 while the
	// glitches went on.
	bool back = false;
	for (int i = 1; i < committed(&h); i++) {
		const struct harness_commit *c = &h.commits[i];
		back = back || (c->width == 3840 && c->refresh_mhz == 60000 &&
			c->usec > stepped_down && c->usec < h.done_usec);
	}
	check(back);
	harness_finish(&h);
}

/*
 * 3. A mode that failed at four lanes was skipped as known bad when the
 * kernel offered it at HBR3 x2, a link it never failed at.
 */
static void test_dock_two_lanes_tries_4k60(void) {
	struct harness h;
	check(harness_init(&h, NULL));
	check(harness_run_file(&h, SCENARIO_DIR "/shortest-3-dock-two-lanes.scn", 1000));
	struct harness_connector *hc = harness_connector(&h, "DP-1");
	check(hc != NULL);
	if (hc != NULL) {
		const struct lg_connector *conn = hc->conn;
		check(harness_mode_is(&conn->current, 3840, 2160, 60));
		check_int_eq(conn->state, LG_LINK_GOOD);
		check_int_eq(conn->link_params.lanes, 2);
		check_int_eq(conn->link_params.rate_mbps, 8100);
		check_int_eq(conn->link_status, LG_LINK_STATUS_GOOD);
	}
	for (int i = 0; i < h.n_fallbacks && i < HARNESS_MAX_EVENTS; i++) {
		check(h.fallbacks[i].reason != LG_FALLBACK_KNOWN_BAD);
	}
	harness_finish(&h);
}

/*
 * Every fallback goes down, and every incident that ended at a mode above
 * the one it began at is a step-up or restored (at the requested mode),
 * never degraded or held. Returns the last incident, NULL if none.
 */
static const struct lg_incident *check_steps_up_told(const struct harness *h,
		const struct lg_connector *conn) {
	for (int i = 0; i < h->n_fallbacks && i < HARNESS_MAX_EVENTS; i++) {
		const struct lg_fallback *f = &h->fallbacks[i];
		check(pixels_per_second(&f->to) < pixels_per_second(&f->from));
	}
	const struct lg_history *history = connector_history(conn);
	size_t len = lg_history_len(history);
	for (size_t i = 0; i < len; i++) {
		const struct lg_incident *incident = lg_history_at(history, i);
		if (pixels_per_second(&incident->mode_after) >
				pixels_per_second(&incident->mode_before)) {
			check(incident->outcome == LG_INCIDENT_STEP_UP ||
				incident->outcome == LG_INCIDENT_RESTORED);
		}
	}
	return len > 0 ? lg_history_at(history, len - 1) : NULL;
}

/* 4. A step back up was reported as "fallback ... (flapping)". */
static void test_step_up_is_no_fallback(void) {
	struct lg_options options;
	scaled_options(&options);
	struct harness h;
	check(harness_init(&h, &options));
	struct harness_connector *hc =
		run_burst(&h, SCENARIO_DIR "/shortest-4-step-up-reported.scn");
	check(h.n_restored >= 1);
	const struct lg_incident *last = hc != NULL ? check_steps_up_told(&h, hc->conn) : NULL;
	check(last != NULL && last->outcome == LG_INCIDENT_RESTORED);
	check(last != NULL && harness_mode_is(&last->mode_after, 3840, 2160, 60));
	harness_finish(&h);
}

static bool at_4k30_degraded(void *data) {
	const struct lg_connector *conn = data;
	return conn->state == LG_LINK_DEGRADED && conn->has_current &&
		harness_mode_is(&conn->current, 3840, 2160, 30) &&
		conn->link_status == LG_LINK_STATUS_GOOD && recovery_idle(conn);
}

/*
 * 4, short of the requested mode: back up to 4K30, the best the cable
 * carries, was "fallback 1920x1080@60.000 -> 3840x2160@30.000
 * (mode-pruned)" and an incident "held".
 */
static void test_step_up_below_requested(void) {
	struct lg_options options;
	scaled_options(&options);
	struct harness h;
	check(harness_init(&h, &options));
	check(harness_run_file(&h, SCENARIO_DIR "/shortest-5-step-up-below-requested.scn", 0));
	struct harness_connector *hc = harness_connector(&h, "DP-1");
	check(hc != NULL);
	if (hc == NULL) {
		harness_finish(&h);
		return;
	}
	check(harness_dispatch_until(&h, at_4k30_degraded, hc->conn, MAX_WAIT_MS));
	const struct lg_incident *last = check_steps_up_told(&h, hc->conn);
	check(last != NULL && last->outcome == LG_INCIDENT_STEP_UP);
	if (last != NULL) {
		// Why 4K60 does not run yet: the cable no longer carries it.
		check_int_eq(last->reason, LG_INCIDENT_MODE_PRUNED);
		check(harness_mode_is(&last->mode_after, 3840, 2160, 30));
		check(pixels_per_second(&last->mode_before) <
			pixels_per_second(&last->mode_after));
	}
	harness_finish(&h);
}

/* test_shortest_path [CASE...]: the cases named (the mutants suite's), else all. */
static int n_named;
static char **named;

static bool chosen(const char *name) {
	for (int i = 0; i < n_named; i++) {
		if (strcmp(named[i], name) == 0) {
			return true;
		}
	}
	return n_named == 0;
}

#define run_chosen(fn) \
	do { \
		if (chosen(#fn)) { \
			run_test(fn); \
		} \
	} while (0)

int main(int argc, char *argv[]) {
	n_named = argc - 1;
	named = argv + 1;
	run_chosen(test_burst_back_to_best_in_one_modeset);
	run_chosen(test_step_down_lowers_the_link);
	run_chosen(test_dock_two_lanes_tries_4k60);
	run_chosen(test_step_up_is_no_fallback);
	run_chosen(test_step_up_below_requested);
	return test_result();
}
