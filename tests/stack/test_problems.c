/*
 * The problems a new user found with scenarios of their own, each now a
 * scenario file in tests/scenarios/ run on the full headless stack (core +
 * sim + wlroots' headless backend). Before the recovery state machine of
 * src/machine.c each of these failed.
 */
#include <wlr/types/wlr_output.h>
#include <linkguard/connector.h>
#include <core/machine.h>
#include <core/recovery.h>
#include "harness.h"
#include "test.h"

/* No commit turned the output off. */
static bool never_disabled(const struct harness *h) {
	for (int i = 0; i < h->modesets && i < HARNESS_MAX_EVENTS; i++) {
		if (!h->commits[i].enabled) {
			return false;
		}
	}
	return true;
}

/* P2: the most of linkguard's modesets (all but the compositor's first) in any window. */
static int most_in_window(const struct harness *h) {
	int most = 0;
	int n = h->modesets < HARNESS_MAX_EVENTS ? h->modesets : HARNESS_MAX_EVENTS;
	for (int i = 1; i < n; i++) {
		int in_window = 0;
		for (int j = i; j < n; j++) {
			// On the machine's clock, whole milliseconds: commits
			// 9999.4 ms apart by the microsecond one can be 10000
			// apart there, the window's edge (seen: 13 counted).
			in_window += h->commits[j].usec / 1000 - h->commits[i].usec / 1000 <
				MACHINE_BUDGET_WINDOW_MS;
		}
		most = in_window > most ? in_window : most;
	}
	return most;
}

struct wait_for_mode {
	struct harness_connector *hc;
	int32_t width, height, refresh_hz;
	enum lg_link_state state;
};

static bool at_mode(void *data) {
	struct wait_for_mode *wait = data;
	const struct lg_connector *conn = wait->hc->conn;
	return conn->state == wait->state && conn->has_current &&
		harness_mode_is(&conn->current, wait->width, wait->height, wait->refresh_hz) &&
		recovery_idle(conn);
}

/*
 * 1. Glitches faster than the settle time used to land while the connector
 * was retraining, never counted as flaps: the same mode was retrained until
 * the incident's commit limit, then the output was disabled ("no mode fits
 * the link") and stayed dark until replug.
 */
static void test_p1_glitch_burst_never_dark(void) {
	struct lg_options options;
	lg_options_init(&options);
	options.settle_ms = 100;
	options.flap_window_ms = 1000;
	options.backoff_min_ms = 200;
	options.backoff_max_ms = 2000;
	struct harness h;
	check(harness_init(&h, &options));
	check(harness_run_file(&h, SCENARIO_DIR "/p1-glitch-burst.scn", 0));
	struct harness_connector *hc = harness_connector(&h, "DP-1");
	check(hc != NULL);
	if (hc != NULL) {
		struct wait_for_mode wait = { hc, 3840, 2160, 60, LG_LINK_GOOD };
		check(harness_dispatch_until(&h, at_mode, &wait, 20000));
		check(harness_state_seen(hc, LG_LINK_FLAPPING));
		check(!harness_state_seen(hc, LG_LINK_FAILED));
		check(hc->conn->output != NULL && hc->conn->output->enabled);
		check_int_eq(hc->conn->link_status, LG_LINK_STATUS_GOOD);
	}
	check(h.modesets > 2); // the burst was answered, not ignored
	check(never_disabled(&h));
	check_int_eq(h.n_failed, 0);
	check(most_in_window(&h) <= MACHINE_BUDGET_MODESETS);
	check_int_eq(h.outputs_destroyed, 0);
	harness_finish(&h);
}

/*
 * 2. When the kernel's list grew during an incident (i915 halved the lanes
 * and went back to the top rate), the current fallback was retrained
 * instead of planning again from the requested mode.
 */
static void test_p2_richer_list_planned_from_requested(void) {
	struct harness h;
	check(harness_init(&h, NULL));
	check(harness_run_file(&h, SCENARIO_DIR "/p2-richer-list.scn", 600));
	struct harness_connector *hc = harness_connector(&h, "DP-1");
	check(hc != NULL);
	if (hc != NULL) {
		check(harness_mode_is(&hc->conn->current, 3840, 2160, 30));
		check(harness_mode_is(&hc->conn->requested, 3840, 2160, 60));
		check_int_eq(hc->conn->state, LG_LINK_DEGRADED);
		check_int_eq(hc->conn->link_params.lanes, 2);
		check_int_eq(hc->conn->link_params.rate_mbps, 5400);
		check_int_eq(hc->conn->link_status, LG_LINK_STATUS_GOOD);
	}
	check(never_disabled(&h));
	check_int_eq(h.n_failed, 0);
	check_int_eq(h.outputs_destroyed, 0);
	harness_finish(&h);
}

/*
 * 3. A flapping link used to be held at its mode with link-status BAD (no
 * picture) until the flap window passed, 10 s here.
 */
static void test_p3_flapping_link_answered_within_backoff(void) {
	struct lg_options options;
	lg_options_init(&options);
	options.settle_ms = 100;
	options.flap_window_ms = 10000;
	struct harness h;
	check(harness_init(&h, &options));
	// The last glitch comes at 2 s; the backoff is 1 s after the first
	// step down, so by 2 s later every BAD has been answered.
	check(harness_run_file(&h, SCENARIO_DIR "/p3-flapping-link.scn", 2000));
	struct harness_connector *hc = harness_connector(&h, "DP-1");
	check(hc != NULL);
	if (hc != NULL) {
		check(harness_state_seen(hc, LG_LINK_FLAPPING));
		check_int_eq(hc->conn->link_status, LG_LINK_STATUS_GOOD);
		check(hc->conn->output != NULL && hc->conn->output->enabled);
		// Stepped down at the third BAD, to a mode that needs less
		// bandwidth than 4K60 (and, as often below it, back since).
		check(h.n_fallbacks > 0 &&
			h.fallbacks[0].reason == LG_FALLBACK_FLAPPING &&
			h.fallbacks[0].to.clock_khz < 533250);
	}
	check(never_disabled(&h));
	check_int_eq(h.outputs_destroyed, 0);
	harness_finish(&h);
}

int main(void) {
	run_test(test_p1_glitch_burst_never_dark);
	run_test(test_p2_richer_list_planned_from_requested);
	run_test(test_p3_flapping_link_answered_within_backoff);
	return test_result();
}
