/*
 * The sink's DPCD in the sim (lock bits that follow its link, symbol error
 * counters a marginal cable makes rise) read by the core's sink monitor:
 * a link that goes dark with link-status GOOD and no uevent, and a cable
 * that slowly degrades. Core + sim on wlroots' headless backend.
 */
#include <wlr/types/wlr_output.h>
#include <linkguard/connector.h>
#include <core/history.h>
#include <core/recovery.h>
#include "harness.h"
#include "test.h"

static const enum lg_link_state GOOD = LG_LINK_GOOD, BAD = LG_LINK_BAD,
	RETRAINING = LG_LINK_RETRAINING, DEGRADED = LG_LINK_DEGRADED;

/* At 30 bpp i915 trains 4K60 and 4K30 at HBR2 x4, 1440p60 at HBR x4. */
#define UHD60_KHZ 533250

/* Fast reads: every 200 ms, a dark link after 300 ms of it. */
static void fast_options(struct lg_options *options) {
	lg_options_init(options);
	options->settle_ms = 100;
	options->flap_window_ms = 3000;
	options->sink_poll_ms = 200;
	options->sink_settle_ms = 300;
}

/* Runs scenario from its start; DP-1's connector, or NULL (a failure). */
static struct harness_connector *run(struct harness *h,
		const struct lg_options *options, const char *scenario, int linger_ms) {
	check(harness_init(h, options));
	check(harness_run(h, scenario, linger_ms));
	struct harness_connector *hc = harness_connector(h, "DP-1");
	check(hc != NULL);
	return hc;
}

static bool sink_locked(const struct lg_connector *conn) {
	return conn->has_sink_status && lg_sink_status_locked(&conn->sink_status);
}

/* The error rates' verdict, whenever a loaded machine gets there. */
static bool degraded(void *data) {
	const struct lg_connector *conn = data;
	return conn->state == DEGRADED;
}

/* amdgpu's case: the sink lost the link, the driver said nothing. */
static void test_dark_link_retrained_in_place(void) {
	struct lg_options options;
	fast_options(&options);
	struct harness h;
	struct harness_connector *hc = run(&h, &options,
		"0 plug DP-1 4k60\n"
		"500ms dark DP-1\n", 1500);
	if (hc != NULL) {
		const enum lg_link_state want[] = { GOOD, BAD, RETRAINING, GOOD };
		check(harness_states_were(hc, want, 4));
		check(harness_mode_is(&hc->conn->current, 3840, 2160, 60));
		check_int_eq(hc->conn->link_status, LG_LINK_STATUS_GOOD);
		check(sink_locked(hc->conn));
		check_int_eq(hc->conn->link_params.rate_mbps, 5400);
		// One incident, the sink's: the machine judged its reads.
		const struct lg_history *history = connector_history(hc->conn);
		check_int_eq(lg_history_len(history), 1);
		check(lg_history_len(history) == 1 &&
			lg_history_at(history, 0)->reason == LG_INCIDENT_SINK_UNLOCKED);
	}
	// The compositor's, then the retrain: the mode that runs, committed
	// again with link-status GOOD, is no modeset to the kernel, so its
	// CRTC went off first, unseen by the compositor.
	check_int_eq(h.modesets, 2);
	check(h.modesets >= 2 && h.commits[1].enabled && harness_mode_is(&(struct lg_mode){
		.width = h.commits[1].width, .height = h.commits[1].height,
		.refresh_mhz = h.commits[1].refresh_mhz }, 3840, 2160, 60));
	check_int_eq(h.n_fallbacks, 0);
	check_int_eq(h.outputs_destroyed, 0);
	harness_finish(&h);
}

/* Each fallback has a lower pixel clock than the one before, for reason. */
static bool stepped_down(const struct harness *h, enum lg_fallback_reason reason) {
	uint32_t clock = UHD60_KHZ;
	for (int i = 0; i < h->n_fallbacks; i++) {
		const struct lg_fallback *f = &h->fallbacks[i];
		if (f->reason != reason || f->from.clock_khz != clock ||
				f->to.clock_khz >= clock) {
			return false;
		}
		clock = f->to.clock_khz;
	}
	return h->n_fallbacks > 0;
}

/*
 * The sink holds lock up to HBR only: 4K60 goes dark at HBR2 x4, is
 * retrained once and goes dark again; the step goes to the best mode i915
 * trains at a lower link configuration: past 4K30 (HBR2 x4 as well, at 30
 * bpp) to 1440p60 at HBR x4, in one.
 */
static void test_dark_again_steps_down(void) {
	struct lg_options options;
	fast_options(&options);
	struct harness h;
	struct harness_connector *hc = run(&h, &options,
		"0 plug DP-1 4k60\n"
		"500ms dark DP-1 hbr\n", 4000);
	if (hc != NULL) {
		check(harness_state_seen(hc, BAD));
		check(harness_dispatch_until(&h, degraded, hc->conn, 20000));
		check(harness_mode_is(&hc->conn->current, 2560, 1440, 60));
		check(harness_mode_is(&hc->conn->requested, 3840, 2160, 60));
		check(sink_locked(hc->conn));
		check_int_eq(hc->conn->link_params.rate_mbps, 2700);
		check_int_eq(hc->conn->link_status, LG_LINK_STATUS_GOOD);
	}
	check_int_eq(h.n_fallbacks, 1);
	check(stepped_down(&h, LG_FALLBACK_SINK_UNLOCKED));
	// The compositor's, the retrain and the step down.
	check_int_eq(h.modesets, 3);
	check_int_eq(h.outputs_destroyed, 0);
	harness_finish(&h);
}

/*
 * A cable that slowly degrades: 50, then 200 symbol errors a minute per
 * lane are within DisplayPort's 10^-9 at HBR2 (324); 100000 are not, and
 * the link is degraded before the picture fails, without a modeset.
 */
static void test_slowly_degrading_cable_is_reported(void) {
	struct lg_options options;
	fast_options(&options);
	struct harness h;
	struct harness_connector *hc = run(&h, &options,
		"0 plug DP-1 4k60\n"
		"300ms errors DP-1 50\n"
		"800ms errors DP-1 200\n"
		"1800ms errors DP-1 100000\n", 0);
	if (hc == NULL) {
		harness_finish(&h);
		return;
	}
	// Within the threshold, and no minute's window complete yet.
	check(hc->conn->has_sink_status);
	check(!hc->conn->link_errors);
	check(!hc->conn->has_error_rates);
	check_int_eq(hc->conn->state, GOOD);
	check(harness_dispatch_until(&h, degraded, hc->conn, 20000));
	check(hc->conn->link_errors);
	check(hc->conn->has_error_rates);
	for (int lane = 0; lane < 4; lane++) {
		check(hc->conn->error_rates[lane] > 324);
	}
	check_int_eq(hc->conn->state, DEGRADED);
	check(harness_mode_is(&hc->conn->current, 3840, 2160, 60));
	check(sink_locked(hc->conn)); // not dark: the picture still shows
	check_int_eq(h.modesets, 1);
	check_int_eq(h.n_fallbacks, 0);
	harness_finish(&h);
}

/* With the step down for errors: a mode that trains below the bad rate. */
static void test_errors_step_down(void) {
	struct lg_options options;
	fast_options(&options);
	options.link_errors_step_down = true;
	struct harness h;
	struct harness_connector *hc = run(&h, &options,
		"0 plug DP-1 4k60\n"
		"300ms errors DP-1 100000\n", 2000);
	if (hc != NULL) {
		// A loaded machine may still retrain at the linger's end.
		check(harness_dispatch_until(&h, degraded, hc->conn, 20000));
		// 4K30 trains at HBR2 x4 as 4K60 does, where the errors
		// are: 1440p60 at HBR x4, in one step.
		check(harness_mode_is(&hc->conn->current, 2560, 1440, 60));
		check_int_eq(hc->conn->link_params.rate_mbps, 2700);
		check_int_eq(hc->conn->state, DEGRADED);
	}
	check_int_eq(h.n_fallbacks, 1);
	check(stepped_down(&h, LG_FALLBACK_LINK_ERRORS));
	check_int_eq(h.modesets, 2);
	harness_finish(&h);
}

/* Without recovery the sink's status is reported and nothing is done. */
static void test_dark_link_reported_only_without_recovery(void) {
	struct lg_options options;
	fast_options(&options);
	options.recover = false;
	struct harness h;
	struct harness_connector *hc = run(&h, &options,
		"0 plug DP-1 4k60\n"
		"300ms dark DP-1\n", 1000);
	if (hc != NULL) {
		check(hc->conn->has_sink_status);
		check(!lg_sink_status_locked(&hc->conn->sink_status));
		check_int_eq(hc->conn->state, GOOD);
	}
	check_int_eq(h.modesets, 1);
	harness_finish(&h);
}

int main(void) {
	run_test(test_dark_link_retrained_in_place);
	run_test(test_dark_again_steps_down);
	run_test(test_slowly_degrading_cable_is_reported);
	run_test(test_errors_step_down);
	run_test(test_dark_link_reported_only_without_recovery);
	return test_result();
}
