/*
 * Scenario tests: core + sim on a wl_event_loop with wlroots' headless
 * backend. Each scenario is a sim script; the assertions check every state
 * transition, the modes committed and that the output was never destroyed.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <wlr/types/wlr_output.h>
#include <wlr/util/log.h>
#include <linkguard/commit.h>
#include <linkguard/connector.h>
#include <linkguard/manager.h>
#include <core/history.h>
#include <core/recovery.h>
#include <core/store.h>
#include "harness.h"
#include "test.h"

static const enum lg_link_state GOOD = LG_LINK_GOOD, BAD = LG_LINK_BAD,
	RETRAINING = LG_LINK_RETRAINING, DEGRADED = LG_LINK_DEGRADED,
	FAILED = LG_LINK_FAILED, FLAPPING = LG_LINK_FLAPPING;

/*
 * What the tests wait for once their scenario is done: the state a recovery
 * comes to rest in, never a fixed time (a loaded machine runs the settle
 * timer late). The backstop is generous: it only bounds a failing run.
 */
#define REST_MS 20000

static bool at_rest_in(const struct harness_connector *hc, enum lg_link_state state) {
	return hc->conn != NULL && hc->conn->state == state && recovery_idle(hc->conn);
}

static bool degraded_and_idle(void *data) {
	return at_rest_in(data, DEGRADED);
}

/* Good, and held it for settle_ms. */
static bool settled_good(void *data) {
	return at_rest_in(data, GOOD);
}

/* Back to good after a recovery (good at the start is no answer). */
static bool recovered_good(void *data) {
	struct harness_connector *hc = data;
	return harness_state_seen(hc, RETRAINING) && at_rest_in(hc, GOOD);
}

/* Stepped back up: a retrain's good in between is no answer. */
static bool good_after_flapping(void *data) {
	struct harness_connector *hc = data;
	return harness_state_seen(hc, FLAPPING) && at_rest_in(hc, GOOD);
}

static bool bad(void *data) {
	struct harness_connector *hc = data;
	return hc->conn != NULL && hc->conn->state == BAD;
}

/* Settling a commit (the settle timer armed). */
static bool retraining(void *data) {
	struct harness_connector *hc = data;
	return hc->conn != NULL && hc->conn->state == RETRAINING &&
		!recovery_idle(hc->conn);
}

/* DP-1 good and at rest on the output of its replug (the second one). */
static bool replugged_good(void *data) {
	struct harness *h = data;
	struct harness_connector *hc = harness_connector(h, "DP-1");
	return h->outputs_created == 2 && hc != NULL && hc->conn->connected &&
		hc->conn->output != NULL && at_rest_in(hc, GOOD);
}

static bool replugged_restored(void *data) {
	struct harness *h = data;
	return replugged_good(h) && h->n_restored > 0;
}

static bool both_degraded(void *data) {
	struct harness *h = data;
	struct harness_connector *dp1 = harness_connector(h, "DP-1");
	struct harness_connector *dp2 = harness_connector(h, "DP-2");
	return dp1 != NULL && dp2 != NULL && at_rest_in(dp1, DEGRADED) &&
		at_rest_in(dp2, DEGRADED);
}

/* Waits for DP-1 to come to rest as until() says; DP-1, NULL if never. */
static struct harness_connector *rest_dp1(struct harness *h,
		bool (*until)(void *data)) {
	struct harness_connector *hc = harness_connector(h, "DP-1");
	check(hc != NULL && harness_dispatch_until(h, until, hc, REST_MS));
	return hc;
}

/*
 * An MST branch trains at its maximum (HBR3 x4); lowered in bandwidth order
 * to HBR2 x4 it still carries 4K60 at 24 bpp: retrain the same mode, no
 * probe.
 */
static void test_same_mode_retrained_when_it_still_fits(void) {
	struct harness h;
	check(harness_init(&h, NULL));
	check(harness_run(&h,
		"0 plug DP-1 4k60 mst\n"
		"300ms cable DP-1 hbr2\n", 0));
	struct harness_connector *hc = rest_dp1(&h, recovered_good);
	if (hc != NULL) {
		const enum lg_link_state want[] = { GOOD, BAD, RETRAINING, GOOD };
		check(harness_states_were(hc, want, 4));
		check(harness_mode_is(&hc->conn->current, 3840, 2160, 60));
		check(hc->conn->has_link_params);
		check_int_eq(hc->conn->link_params.lanes, 4);
		check_int_eq(hc->conn->link_params.rate_mbps, 5400);
		check_int_eq(hc->conn->link_status, LG_LINK_STATUS_GOOD);
		check(hc->conn->output != NULL && hc->conn->output->enabled);
	}
	check_int_eq(h.n_fallbacks, 0);
	check_int_eq(h.n_restored, 0); // never left the requested mode
	check_int_eq(h.modesets, 2); // the compositor's, then one retrain
	check_int_eq(h.outputs_destroyed, 0);
	harness_finish(&h);
}

/* wlroots' line when it draws a frame for a commit or test without one. */
static int cleared_buffers;

static void count_cleared(enum wlr_log_importance importance, const char *fmt,
		va_list args) {
	if (strstr(fmt, "Attaching empty buffer") != NULL) {
		cleared_buffers++;
	}
}

/*
 * linkguard's tests draw nothing: the kernel's atomic check reads a
 * buffer's size and format, never its pixels. Without a buffer wlroots
 * draws a whole cleared frame for the test (at 4096x2160 under pixman, a
 * tenth of a second in the real-kernel harness), which the compositor's
 * first frame on a new output then waits for.
 */
static void test_recommendation_tests_draw_nothing(void) {
	struct harness h;
	check(harness_init(&h, NULL));
	check(harness_run(&h, "0 plug DP-1 4k60\n", 0));
	struct harness_connector *hc = rest_dp1(&h, settled_good);
	if (hc != NULL && hc->conn->output != NULL) {
		// Off, as a new output comes: lighting it needs a new buffer.
		struct wlr_output_state state;
		wlr_output_state_init(&state);
		wlr_output_state_set_enabled(&state, false);
		check(wlr_output_commit_state(hc->conn->output, &state));
		wlr_output_state_finish(&state);
		wlr_output_state_init(&state);
		wlr_output_state_set_enabled(&state, true);
		wlr_log_init(WLR_DEBUG, count_cleared);
		cleared_buffers = 0;
		check(lg_manager_recommend_state(h.manager, hc->conn->output, &state));
		wlr_log_init(WLR_ERROR, NULL);
		check(state.committed & WLR_OUTPUT_STATE_MODE);
		check_int_eq(cleared_buffers, 0);
		// The compositor's commit of it still gets a frame.
		cleared_buffers = 0;
		wlr_log_init(WLR_DEBUG, count_cleared);
		check(wlr_output_commit_state(hc->conn->output, &state));
		wlr_log_init(WLR_ERROR, NULL);
		check_int_eq(cleared_buffers, 1);
		wlr_output_state_finish(&state);
	}
	harness_finish(&h);
}

static void test_single_failure_falls_back_to_same_size(void) {
	struct harness h;
	check(harness_init(&h, NULL));
	check(harness_run(&h,
		"0 plug DP-1 1440p144\n"
		"300ms cable DP-1 hbr\n", 0));
	struct harness_connector *hc = rest_dp1(&h, degraded_and_idle);
	if (hc != NULL) {
		const enum lg_link_state want[] = { GOOD, BAD, RETRAINING, DEGRADED };
		check(harness_states_were(hc, want, 4));
		check(harness_mode_is(&hc->conn->current, 2560, 1440, 60));
		check(harness_mode_is(&hc->conn->requested, 2560, 1440, 144));
	}
	check_int_eq(h.n_fallbacks, 1);
	check(h.n_fallbacks == 1 &&
		h.fallbacks[0].reason == LG_FALLBACK_MODE_PRUNED &&
		harness_mode_is(&h.fallbacks[0].from, 2560, 1440, 144) &&
		harness_mode_is(&h.fallbacks[0].to, 2560, 1440, 60));
	check_int_eq(h.modesets, 2);
	check_int_eq(h.outputs_destroyed, 0);
	harness_finish(&h);
}

/* The demo: 4K60 trains at HBR2 x4 (i915's lowest rate); HBR x4 prunes it: 4K30. */
static void test_cascade_to_hbr_keeps_4k_at_30hz(void) {
	struct harness h;
	check(harness_init(&h, NULL));
	check(harness_run(&h,
		"0 plug DP-1 4k60\n"
		"300ms cable DP-1 hbr\n", 0));
	struct harness_connector *hc = rest_dp1(&h, degraded_and_idle);
	if (hc != NULL) {
		const enum lg_link_state want[] = { GOOD, BAD, RETRAINING, DEGRADED };
		check(harness_states_were(hc, want, 4));
		check(harness_mode_is(&hc->conn->current, 3840, 2160, 30));
		check_int_eq(hc->conn->link_params.rate_mbps, 2700);
		check_int_eq(hc->conn->link_params.lanes, 4);
	}
	check_int_eq(h.n_fallbacks, 1);
	check_int_eq(h.modesets, 2);
	check_int_eq(h.outputs_destroyed, 0);
	harness_finish(&h);
}

static void test_refresh_first_keeps_60hz(void) {
	struct lg_options options;
	lg_options_init(&options);
	options.policy = LG_POLICY_REFRESH_FIRST;
	options.settle_ms = 100;
	struct harness h;
	check(harness_init(&h, &options));
	check(harness_run(&h,
		"0 plug DP-1 4k60\n"
		"300ms cable DP-1 hbr\n", 0));
	struct harness_connector *hc = rest_dp1(&h, degraded_and_idle);
	check(hc != NULL && harness_mode_is(&hc->conn->current, 2560, 1440, 60));
	harness_finish(&h);
}

/*
 * i915's ladder down to RBR x1, one commit a rung; where it halves the
 * lanes and returns to HBR3 the list grows and 4K30 is tried again.
 */
static void test_cascade_down_to_rbr_x1(void) {
	struct harness h;
	check(harness_init(&h, NULL));
	check(harness_run(&h,
		"0 plug DP-1 4k60\n"
		"300ms cable DP-1 rbr lanes=1\n", 0));
	struct harness_connector *hc = rest_dp1(&h, degraded_and_idle);
	if (hc != NULL) {
		check_int_eq(hc->conn->state, DEGRADED);
		check_int_eq(hc->conn->link_params.lanes, 1);
		check_int_eq(hc->conn->link_params.rate_mbps, 1620);
		check(harness_mode_is(&hc->conn->current, 1024, 768, 60));
		check(!harness_state_seen(hc, FLAPPING));
		check(!harness_state_seen(hc, FAILED));
	}
	check(h.modesets >= 2);
	check(h.modesets <= 1 + 12); // at most one commit per rung
	check_int_eq(h.n_failed, 0);
	check_int_eq(h.outputs_destroyed, 0);
	harness_finish(&h);
}

static void test_async_failure_long_after_good_commit(void) {
	struct harness h;
	check(harness_init(&h, NULL));
	struct timespec start;
	clock_gettime(CLOCK_MONOTONIC, &start);
	check(harness_run(&h,
		"0 plug DP-1 1440p144\n"
		"1500ms cable DP-1 hbr\n", 0));
	struct harness_connector *hc = rest_dp1(&h, degraded_and_idle);
	if (hc != NULL) {
		const enum lg_link_state want[] = { GOOD, BAD, RETRAINING, DEGRADED };
		check(harness_states_were(hc, want, 4));
	}
	check_int_eq(h.n_fallbacks, 1);
	if (h.n_fallbacks == 1) {
		int64_t after_ms = (h.fallbacks[0].when.tv_sec - start.tv_sec) * 1000 +
			(h.fallbacks[0].when.tv_nsec - start.tv_nsec) / 1000000;
		check(after_ms >= 1400);
	}
	check_int_eq(h.outputs_destroyed, 0);
	harness_finish(&h);
}

/* Stalls the event loop once, for 2 s, after the first modeset. */
struct stall {
	struct harness *h;
	bool done;
};

static void stall_after_first_modeset(void *data) {
	struct stall *stall = data;
	if (stall->done || stall->h->modesets < 1) {
		return;
	}
	stall->done = true;
	nanosleep(&(struct timespec){ .tv_sec = 2 }, NULL);
}

/*
 * A compositor stalled (a loaded machine) past two failures 1 s apart: they
 * come late but still 1 s apart, each answered as it would be on time, not
 * both in one dispatch.
 */
static void test_stalled_loop_keeps_the_steps_apart(void) {
	struct harness h;
	check(harness_init(&h, NULL));
	struct stall stall = { .h = &h };
	h.tick = stall_after_first_modeset;
	h.tick_data = &stall;
	check(harness_run(&h,
		"0 plug DP-1 1440p144\n"
		"0 plug DP-2 1440p144\n"
		"300ms cable DP-1 hbr\n"
		"1300ms cable DP-2 hbr\n", 0));
	h.tick = NULL;
	check(stall.done);
	struct harness_connector *dp1 = rest_dp1(&h, degraded_and_idle);
	struct harness_connector *dp2 = harness_connector(&h, "DP-2");
	check(dp2 != NULL && harness_dispatch_until(&h, degraded_and_idle, dp2, REST_MS));
	const enum lg_link_state want[] = { GOOD, BAD, RETRAINING, DEGRADED };
	if (dp1 != NULL && dp2 != NULL) {
		check(harness_states_were(dp1, want, 4));
		check(harness_states_were(dp2, want, 4));
	}
	if (dp1 != NULL && dp2 != NULL && dp1->n_states == 4 && dp2->n_states == 4) {
		int64_t apart_ms = ((int64_t)dp2->state_usec[1] -
			(int64_t)dp1->state_usec[1]) / 1000;
		fprintf(stderr, "the two failures came %" PRId64 " ms apart\n", apart_ms);
		check(apart_ms >= 900);
	}
	check_int_eq(h.outputs_destroyed, 0);
	harness_finish(&h);
}

/*
 * 6 glitches 300 ms apart (flap 3 in 3 s): two retrains, then a step down
 * to 2560x1440@60, the first mode i915 trains at a lower link than 4K60's
 * HBR2 x4 (4K30 trains there too, at 30 bpp), and the rest answered a
 * backoff apart; quiet again, one step back up to 4K60.
 */
static void test_flapping_link_steps_down_and_back_up(void) {
	struct harness h;
	check(harness_init(&h, NULL));
	check(harness_run(&h,
		"0 plug DP-1 4k60\n"
		"300ms flap DP-1 6 300ms\n", 0));
	struct harness_connector *hc = rest_dp1(&h, good_after_flapping);
	if (hc != NULL) {
		check(harness_state_seen(hc, FLAPPING));
		check(harness_mode_is(&hc->conn->current, 3840, 2160, 60));
		check_int_eq(hc->conn->link_status, LG_LINK_STATUS_GOOD);
	}
	check(h.n_fallbacks >= 1 && h.fallbacks[0].reason == LG_FALLBACK_FLAPPING &&
		harness_mode_is(&h.fallbacks[0].to, 2560, 1440, 60));
	check_int_eq(h.n_restored, 1);
	// 6 BADs: 2 retrains, a step down, the rest spaced by the backoff,
	// and the step back up: never one modeset per BAD.
	check(h.modesets <= 1 + 6);
	check_int_eq(h.outputs_destroyed, 0);
	harness_finish(&h);
}

static void test_zero_modes_fails_then_replug_restores(void) {
	struct harness h;
	check(harness_init(&h, NULL));
	check(harness_run(&h,
		"0 plug DP-1 1440p144\n"
		"300ms cable DP-1 rbr lanes=1\n"
		"300ms wait failed\n" // the harness's cue: the cascade's end
		"1200ms heal DP-1\n"
		"1300ms unplug DP-1\n"
		"1500ms plug DP-1 1440p144\n", 0));
	check(harness_dispatch_until(&h, replugged_restored, &h, REST_MS));
	struct harness_connector *hc = harness_connector(&h, "DP-1");
	if (hc != NULL) {
		check(harness_state_seen(hc, FAILED));
		check_int_eq(hc->conn->state, GOOD);
		check(harness_mode_is(&hc->conn->current, 2560, 1440, 144));
		check(hc->conn->connected && hc->conn->output != NULL);
	}
	check_int_eq(h.n_failed, 1);
	check_int_eq(h.n_restored, 1);
	check_int_eq(h.outputs_created, 2);
	check_int_eq(h.outputs_destroyed, 1); // the unplug, nothing else
	harness_finish(&h);
}

static void test_unplug_during_recovery(void) {
	struct harness h;
	check(harness_init(&h, NULL));
	check(harness_run(&h,
		"0 plug DP-1 4k60\n"
		"300ms cable DP-1 hbr\n"
		"301ms unplug DP-1\n"
		"600ms heal DP-1\n"
		"700ms plug DP-1 4k60\n", 0));
	check(harness_dispatch_until(&h, replugged_good, &h, REST_MS));
	struct harness_connector *hc = harness_connector(&h, "DP-1");
	if (hc != NULL) {
		check(hc->conn->connected);
		check_int_eq(hc->conn->state, GOOD);
		check(harness_mode_is(&hc->conn->current, 3840, 2160, 60));
		check(recovery_idle(hc->conn));
	}
	check_int_eq(h.n_failed, 0);
	check_int_eq(h.outputs_destroyed, 1);
	harness_finish(&h);
}

/*
 * A compositor that stores linkguard's fallback as its own configuration
 * (sway's handle_request_state does) starts the replugged output at it. The
 * requested mode still stands: once the link has settled, linkguard asks
 * for it again, and the compositor stores that too.
 */
static void test_replug_at_stored_fallback_steps_back_up(void) {
	struct lg_options options;
	lg_options_init(&options);
	options.settle_ms = 100;
	options.flap_window_ms = 3000;
	options.commit = lg_commit_request_state;
	struct harness h;
	check(harness_init(&h, &options));
	h.stores_requests = true;
	check(harness_run(&h,
		"0 plug DP-1 4k60\n"
		"300ms cable DP-1 hbr\n"
		"1000ms unplug DP-1\n"
		"1100ms heal DP-1\n", 0));
	int before_replug = h.modesets;
	check(harness_run(&h, "0 plug DP-1 4k60\n", 0));
	struct harness_connector *hc = harness_connector(&h, "DP-1");
	check(hc != NULL);
	if (hc != NULL) {
		check(harness_dispatch_until(&h, settled_good, hc, REST_MS));
		check(harness_mode_is(&hc->conn->current, 3840, 2160, 60));
		check(harness_mode_is(&hc->conn->requested, 3840, 2160, 60));
		check(recovery_idle(hc->conn));
	}
	// The replugged output started at the stored fallback, 4K30, then 4K60.
	check_int_eq(h.modesets, before_replug + 2);
	if (h.modesets == before_replug + 2 && h.modesets <= HARNESS_MAX_EVENTS) {
		check_int_eq((h.commits[before_replug].refresh_mhz + 500) / 1000, 30);
		check_int_eq((h.commits[before_replug + 1].refresh_mhz + 500) / 1000, 60);
	}
	const struct harness_config *config = harness_config(&h, "DP-1");
	check(config != NULL && config->width == 3840 && config->height == 2160 &&
		(config->refresh_mhz + 500) / 1000 == 60);
	check_int_eq(h.n_fallbacks, 1); // 4K60 -> 4K30, before the unplug
	check_int_eq(h.n_restored, 1);
	check_int_eq(h.outputs_destroyed, 1);
	harness_finish(&h);
}

static void test_two_connectors_fail_at_once(void) {
	struct harness h;
	check(harness_init(&h, NULL));
	check(harness_run(&h,
		"0 plug DP-1 4k60\n"
		"0 plug DP-2 1440p144\n"
		"300ms cable DP-1 hbr\n"
		"300ms cable DP-2 hbr\n", 0));
	check(harness_dispatch_until(&h, both_degraded, &h, REST_MS));
	struct harness_connector *dp1 = harness_connector(&h, "DP-1");
	struct harness_connector *dp2 = harness_connector(&h, "DP-2");
	check(dp1 != NULL && harness_mode_is(&dp1->conn->current, 3840, 2160, 30));
	check(dp2 != NULL && harness_mode_is(&dp2->conn->current, 2560, 1440, 60));
	check(dp1 != NULL && dp1->conn->state == DEGRADED);
	check(dp2 != NULL && dp2->conn->state == DEGRADED);
	check_int_eq(h.n_fallbacks, 2);
	// Recovered in one commit (its answer deferred): one incident each.
	for (int i = 0; i < 2; i++) {
		struct harness_connector *hc = i == 0 ? dp1 : dp2;
		const struct lg_history *history =
			hc != NULL ? connector_history(hc->conn) : NULL;
		check(history != NULL && lg_history_len(history) == 1 &&
			lg_history_at(history, 0)->outcome == LG_INCIDENT_DEGRADED &&
			lg_mode_same_timing(&lg_history_at(history, 0)->mode_after,
				&hc->conn->current));
	}
	check_int_eq(h.outputs_destroyed, 0);
	harness_finish(&h);
}

/* The kernel never raises a lowered link by itself: a retry after the cable
 * healed is refused without a modeset until the sink is replugged. */
static void test_retry_refused_until_replug(void) {
	struct harness h;
	check(harness_init(&h, NULL));
	check(harness_run(&h,
		"0 plug DP-1 4k60\n"
		"300ms cable DP-1 hbr\n"
		"1000ms heal DP-1\n", 0));
	struct harness_connector *hc = rest_dp1(&h, degraded_and_idle);
	if (hc != NULL) {
		int modesets = h.modesets;
		check_int_eq(lg_connector_retry(hc->conn), LG_RETRY_REJECTED);
		check_int_eq(h.modesets, modesets);
		check_int_eq(hc->conn->state, DEGRADED);
	}
	harness_finish(&h);
}

static void test_recovery_disabled_only_reports(void) {
	struct lg_options options;
	lg_options_init(&options);
	options.recover = false;
	struct harness h;
	check(harness_init(&h, &options));
	check(harness_run(&h,
		"0 plug DP-1 4k60\n"
		"300ms cable DP-1 hbr\n", 0));
	struct harness_connector *hc = rest_dp1(&h, bad);
	// Then time for a wrong modeset to show.
	harness_dispatch_for(&h, 300);
	if (hc != NULL) {
		const enum lg_link_state want[] = { GOOD, BAD };
		check(harness_states_were(hc, want, 2));
		check_int_eq(hc->conn->link_status, LG_LINK_STATUS_BAD);
	}
	check_int_eq(h.modesets, 1); // the compositor's only
	check_int_eq(h.n_fallbacks, 0);
	harness_finish(&h);
}

/* The sim (the backend) goes away while a recovery is settling. */
static void test_backend_destroyed_mid_recovery(void) {
	struct harness h;
	check(harness_init(&h, NULL));
	check(harness_run(&h,
		"0 plug DP-1 4k60\n"
		"300ms cable DP-1 hbr\n", 0));
	struct harness_connector *hc = rest_dp1(&h, retraining);
	check(hc != NULL && hc->conn->state == RETRAINING);
	check(hc != NULL && !recovery_idle(hc->conn));
	harness_finish(&h); // must cancel the settle timer: ASan would tell
}

/* The compositor destroys the output while linkguard waits for the link. */
static void test_output_destroyed_mid_recovery(void) {
	struct harness h;
	check(harness_init(&h, NULL));
	check(harness_run(&h,
		"0 plug DP-1 4k60\n"
		"300ms cable DP-1 hbr\n", 1));
	struct harness_connector *hc = harness_connector(&h, "DP-1");
	check(hc != NULL && hc->conn->output != NULL);
	if (hc != NULL && hc->conn->output != NULL) {
		wlr_output_destroy(hc->conn->output);
		check(hc->conn->output == NULL);
		check(recovery_idle(hc->conn));
		// The BADs still in flight find no output and change nothing.
		int modesets = h.modesets;
		for (int i = 0; i < 20; i++) {
			wl_event_loop_dispatch(h.loop, 10);
		}
		check_int_eq(h.modesets, modesets);
		check(hc->conn->output == NULL);
	}
	harness_finish(&h);
}

/* Another monitor on the same connector is asked nothing of the last one. */
static void test_sink_swap_starts_afresh(void) {
	struct harness h;
	check(harness_init(&h, NULL));
	check(harness_run(&h,
		"0 plug DP-1 4k60\n"
		"1000ms cable DP-1 hbr\n" // after the first 4K frame, even under ASan
		"1800ms heal DP-1\n"
		"1900ms swap DP-1 1440p144\n", 0));
	check(harness_dispatch_until(&h, replugged_good, &h, REST_MS));
	struct harness_connector *hc = harness_connector(&h, "DP-1");
	if (hc != NULL) {
		check_int_eq(hc->conn->state, GOOD);
		check(harness_mode_is(&hc->conn->current, 2560, 1440, 144));
		check(harness_mode_is(&hc->conn->requested, 2560, 1440, 144));
		check(strstr(hc->conn->description, "1440p144") != NULL);
	}
	check_int_eq(h.n_fallbacks, 1); // 4K60 -> 4K30 before the swap
	check_int_eq(h.n_restored, 0); // a new monitor is not a restore
	check_int_eq(h.outputs_created, 2);
	harness_finish(&h);
}

/*
 * The kernel refuses every candidate: failed, the output kept at its mode
 * (not turned off: listed modes may pass later), and retried after a
 * growing backoff, not in a loop; once the kernel takes modes again the
 * next try recovers. Refused for 1700 ms: failures at 0, 200, 600 and
 * 1400 ms on an idle machine, fewer on a loaded one (a late loop only
 * stretches the gaps), and a second one even 1.5 s late.
 */
static void test_every_candidate_rejected_fails_then_backs_off(void) {
	struct lg_options options;
	lg_options_init(&options);
	options.settle_ms = 100;
	options.backoff_min_ms = 200;
	struct harness h;
	check(harness_init(&h, &options));
	check(harness_run(&h,
		"0 plug DP-1 4k60\n"
		"300ms reject DP-1 on\n"
		"300ms cable DP-1 hbr\n"
		"2000ms reject DP-1 off\n", 0));
	struct harness_connector *hc = rest_dp1(&h, degraded_and_idle);
	if (hc != NULL) {
		const enum lg_link_state want[] = { GOOD, BAD, FAILED, RETRAINING, DEGRADED };
		check(harness_states_were(hc, want, 5));
		check(harness_mode_is(&hc->conn->current, 3840, 2160, 30));
		check(hc->conn->output != NULL && hc->conn->output->enabled);
	}
	// Backoffs of 200, 400, 800 ms while refused: a handful of failures,
	// each the doubled backoff after the last, not a loop. The machine
	// counts whole milliseconds from the start of the step that failed,
	// and its connector's one timer, due first for another reason (a
	// sink read), finds the backoff due up to a millisecond early by the
	// microsecond, less the step's own time (seen: 199 ms): a few ms.
	check(h.n_failed >= 2 && h.n_failed <= 4);
	for (int i = 1; i < h.n_failed && i < HARNESS_MAX_EVENTS; i++) {
		uint64_t gap_ms = (h.failed_usec[i] - h.failed_usec[i - 1]) / 1000;
		uint64_t backoff_ms = (uint64_t)200 << (i - 1);
		if (gap_ms + 5 < backoff_ms) {
			fprintf(stderr, "failure %d came %" PRIu64 " ms after the last\n",
				i + 1, gap_ms);
			check(gap_ms + 5 >= backoff_ms);
		}
	}
	// The compositor's, then the one that recovered; never a disable.
	check_int_eq(h.modesets, 2);
	harness_finish(&h);
}

/* A compositor hook whose commit of 3840x2160@30 fails, as KMS may. */
static int failed_commits;

static bool commit_failing_4k30(struct wlr_output *output,
		const struct wlr_output_state *state, void *data) {
	if ((state->committed & WLR_OUTPUT_STATE_MODE) &&
			state->mode_type == WLR_OUTPUT_STATE_MODE_CUSTOM &&
			state->custom_mode.width == 3840 &&
			state->custom_mode.refresh == 30000) {
		failed_commits++;
		return false;
	}
	return wlr_output_commit_state(output, state);
}

/*
 * The commit of the chosen fallback fails after its test passed: the mode
 * is ruled out for this monitor and the next candidate is committed, once;
 * the output stays.
 */
static void test_commit_failing_after_test_takes_next_candidate(void) {
	struct lg_options options;
	lg_options_init(&options);
	options.settle_ms = 100;
	options.commit = commit_failing_4k30;
	failed_commits = 0;
	struct harness h;
	check(harness_init(&h, &options));
	check(harness_run(&h,
		"0 plug DP-1 4k60\n"
		"300ms cable DP-1 hbr\n", 0));
	struct harness_connector *hc = rest_dp1(&h, degraded_and_idle);
	if (hc != NULL) {
		check(harness_mode_is(&hc->conn->current, 2560, 1440, 60));
		check(lg_mode_list_find(&hc->conn->known_bad,
			&(struct lg_mode){ 3840, 2160, 30000, 297000, false, false }) >= 0);
		check_int_eq(hc->conn->state, DEGRADED);
	}
	check_int_eq(failed_commits, 1);
	// The compositor's, then 1440p60 (4K30's commit failed before a modeset).
	check_int_eq(h.modesets, 2);
	check_int_eq(h.n_fallbacks, 1);
	check_int_eq(h.outputs_destroyed, 0);
	harness_finish(&h);
}

/* Options whose store is a new directory, dir (a mkdtemp() template). */
static void state_options(struct lg_options *options, char *dir) {
	check(mkdtemp(dir) != NULL);
	lg_options_init(options);
	options->settle_ms = 100;
	options->state_dir = dir;
}

/* The directory of state_options(), removed. */
static void remove_state(const char *dir) {
	char path[64];
	snprintf(path, sizeof(path), "%s/known-bad", dir);
	unlink(path);
	rmdir(dir);
}

/* What the store in dir holds for DP-1's 4K60 monitor, as "failed/skipped". */
static const char *stored_uhd60(const char *dir, char *buf, size_t size) {
	const struct lg_mode uhd60 = { 3840, 2160, 60000, 533250, true, false };
	struct store_entries stored;
	store_entries_init(&stored);
	check(store_load(dir, "DP-1", "4k60", &stored));
	const struct store_entry *e = store_entries_find(&stored, &uhd60, NULL);
	if (e == NULL) {
		snprintf(buf, size, "none");
	} else {
		snprintf(buf, size, "%" PRIu32 "/%" PRIu32, e->failed_starts,
			e->skipped_starts);
	}
	store_entries_finish(&stored);
	return buf;
}

/*
 * Two starts whose cable fails 4K60 (at HBR2 x4) as soon as it is
 * committed: it does not hold for settle_ms first (that would be a
 * success). The store then holds two failed starts and no skipped one.
 */
static void fail_uhd60_at_two_starts(const struct lg_options *options,
		const char *dir) {
	char buf[32];
	for (int start = 1; start <= 2; start++) {
		struct harness h;
		check(harness_init(&h, options));
		check(harness_run(&h, "0 plug DP-1 4k60\n0 cable DP-1 hbr\n", 0));
		struct harness_connector *hc = rest_dp1(&h, degraded_and_idle);
		check(hc != NULL && harness_mode_is(&hc->conn->current, 3840, 2160, 30));
		check_int_eq(h.n_fallbacks, 1); // from 4K60: it was tried
		harness_finish(&h);
		check(strcmp(stored_uhd60(dir, buf, sizeof(buf)),
			start == 1 ? "1/0" : "2/0") == 0);
	}
}

/* The known-bad hold ran: 4K60 held, no longer known bad. */
static bool uhd60_forgotten(void *data) {
	char buf[32];
	return strcmp(stored_uhd60(data, buf, sizeof(buf)), "none") == 0;
}

/*
 * One bad start is no verdict: the next start tries 4K60 (the compositor
 * commits linkguard's recommendation), the new cable holds it, and the
 * store forgets it once the link held it for settle_ms.
 */
static void test_known_bad_mode_held_at_next_start_is_forgotten(void) {
	char dir[] = "/tmp/lg-state-XXXXXX";
	struct lg_options options;
	state_options(&options, dir);
	char buf[32];

	struct harness h;
	check(harness_init(&h, &options));
	check(harness_run(&h,
		"0 plug DP-1 4k60\n"
		"300ms cable DP-1 hbr\n", 0));
	rest_dp1(&h, degraded_and_idle);
	check_int_eq(h.n_fallbacks, 1);
	harness_finish(&h);
	check(strcmp(stored_uhd60(dir, buf, sizeof(buf)), "1/0") == 0);

	check(harness_init(&h, &options));
	check(harness_run(&h, "0 plug DP-1 4k60\n", 0));
	check(harness_dispatch_until(&h, uhd60_forgotten, dir, REST_MS));
	struct harness_connector *hc = harness_connector(&h, "DP-1");
	check(hc != NULL && harness_mode_is(&hc->conn->current, 3840, 2160, 60));
	check(hc != NULL && hc->conn->state == GOOD);
	check_int_eq(h.n_fallbacks, 0);
	harness_finish(&h);
	check(strcmp(stored_uhd60(dir, buf, sizeof(buf)), "none") == 0);
	remove_state(dir);
}

/*
 * The known-bad-mode store across restarts: a monitor whose cable lost
 * 4K60 at one start still gets 4K60 first at the next (one bad start is no
 * verdict); after two starts in a row it starts at 4K30 without a black
 * 4K60 first; a retry of the skipped mode, the cable fixed meanwhile,
 * brings 4K60 back and the store forgets it.
 */
static void test_known_bad_mode_avoided_after_restart(void) {
	char dir[] = "/tmp/lg-state-XXXXXX";
	struct lg_options options;
	state_options(&options, dir);
	fail_uhd60_at_two_starts(&options, dir);
	char buf[32];

	// The next start, the cable fixed meanwhile.
	struct harness h;
	check(harness_init(&h, &options));
	check(harness_run(&h, "0 plug DP-1 4k60\n", 0));
	struct harness_connector *hc = rest_dp1(&h, degraded_and_idle);
	check(strcmp(stored_uhd60(dir, buf, sizeof(buf)), "2/1") == 0);
	if (hc != NULL) {
		check(harness_mode_is(&hc->conn->current, 3840, 2160, 30));
		check(harness_mode_is(&hc->conn->requested, 3840, 2160, 60));
		check_int_eq(hc->conn->state, DEGRADED);
		check_int_eq(h.modesets, 1);
		check_int_eq(h.n_fallbacks, 0);

		// A retry tries the skipped mode; it holds, and is forgotten.
		check_int_eq(lg_connector_retry(hc->conn), LG_RETRY_COMMITTED);
		check(harness_dispatch_until(&h, settled_good, hc, REST_MS));
		check(harness_mode_is(&hc->conn->current, 3840, 2160, 60));
		check_int_eq(hc->conn->state, GOOD);
		check_int_eq(hc->conn->known_bad.len, 0);
	}
	harness_finish(&h);
	check(strcmp(stored_uhd60(dir, buf, sizeof(buf)), "none") == 0);
	remove_state(dir);
}

/* Good at 4K60 on the dock's two HBR3 lanes, and idle. */
static bool uhd60_on_hbr3x2(void *data) {
	struct harness_connector *hc = data;
	const struct lg_connector *conn = hc->conn;
	return at_rest_in(hc, GOOD) && harness_mode_is(&conn->current, 3840, 2160, 60) &&
		conn->link_params.lanes == 2 && conn->link_params.rate_mbps == 8100;
}

/*
 * 4K60 failed at HBR2 x4 at two starts: the next start skips it there,
 * not at HBR3 x2, where the kernel trains it behind a dock's two lanes
 * (i915 lowers HBR2 x4 -> HBR x4 -> RBR x4 -> HBR3 x2): tried, it holds.
 */
static void test_known_bad_after_restart_tried_at_another_link(void) {
	char dir[] = "/tmp/lg-state-XXXXXX";
	struct lg_options options;
	state_options(&options, dir);
	fail_uhd60_at_two_starts(&options, dir);

	struct harness h;
	check(harness_init(&h, &options));
	check(harness_run(&h, "0 plug DP-1 4k60\n500ms cable DP-1 hbr3 lanes=2\n", 0));
	struct harness_connector *hc = rest_dp1(&h, uhd60_on_hbr3x2);
	check(hc != NULL && uhd60_on_hbr3x2(hc));
	harness_finish(&h);
	remove_state(dir);
}

/*
 * A compositor that answers linkguard's state report by asking for a retry
 * and by setting a mode of its own does both from inside the recovery step
 * that emitted it: the retry is busy, the mode set runs after the step, and
 * neither re-enters the machine.
 */
struct reentrant_compositor {
	struct harness *h;
	struct lg_connector *conn;
	struct wl_listener state_change;
	int answers;
	enum lg_retry_result retry;
	bool committed;
};

static void handle_reentrant_state_change(struct wl_listener *listener, void *data) {
	struct reentrant_compositor *rc = wl_container_of(listener, rc, state_change);
	if (rc->conn->state != DEGRADED || rc->answers++ > 0) {
		return;
	}
	rc->retry = lg_connector_retry(rc->conn);
	struct wlr_output_state state;
	wlr_output_state_init(&state);
	wlr_output_state_set_custom_mode(&state, 1920, 1080, 60000);
	rc->committed = wlr_output_commit_state(rc->conn->output, &state);
	wlr_output_state_finish(&state);
}

/* Listens to DP-1 as soon as it is plugged. */
static void reentrant_tick(void *data) {
	struct reentrant_compositor *rc = data;
	struct harness_connector *hc = harness_connector(rc->h, "DP-1");
	if (rc->conn != NULL || hc == NULL || hc->conn == NULL) {
		return;
	}
	rc->conn = hc->conn;
	rc->state_change.notify = handle_reentrant_state_change;
	wl_signal_add(&rc->conn->events.state_change, &rc->state_change);
}

static bool answered_and_idle(void *data) {
	struct reentrant_compositor *rc = data;
	return rc->answers > 0 && recovery_idle(rc->conn);
}

static void test_compositor_answering_from_a_step(void) {
	struct harness h;
	check(harness_init(&h, NULL));
	struct reentrant_compositor rc = { .h = &h, .retry = LG_RETRY_COMMITTED };
	h.tick = reentrant_tick;
	h.tick_data = &rc;
	check(harness_run(&h,
		"0 plug DP-1 4k60\n"
		"500ms cable DP-1 hbr\n", 0));
	if (rc.conn == NULL) {
		check(false);
		harness_finish(&h);
		return;
	}
	check(harness_dispatch_until(&h, answered_and_idle, &rc, REST_MS));
	check_int_eq(rc.retry, LG_RETRY_UNAVAILABLE);
	check(rc.committed);
	// The compositor's 1080p60 reached the machine after the step.
	check(harness_mode_is(&rc.conn->current, 1920, 1080, 60));
	check_int_eq(h.outputs_destroyed, 0);
	wl_list_remove(&rc.state_change.link);
	harness_finish(&h);
}

int main(void) {
	run_test(test_same_mode_retrained_when_it_still_fits);
	run_test(test_single_failure_falls_back_to_same_size);
	run_test(test_recommendation_tests_draw_nothing);
	run_test(test_cascade_to_hbr_keeps_4k_at_30hz);
	run_test(test_refresh_first_keeps_60hz);
	run_test(test_cascade_down_to_rbr_x1);
	run_test(test_async_failure_long_after_good_commit);
	run_test(test_stalled_loop_keeps_the_steps_apart);
	run_test(test_flapping_link_steps_down_and_back_up);
	run_test(test_zero_modes_fails_then_replug_restores);
	run_test(test_unplug_during_recovery);
	run_test(test_replug_at_stored_fallback_steps_back_up);
	run_test(test_two_connectors_fail_at_once);
	run_test(test_retry_refused_until_replug);
	run_test(test_recovery_disabled_only_reports);
	run_test(test_backend_destroyed_mid_recovery);
	run_test(test_output_destroyed_mid_recovery);
	run_test(test_sink_swap_starts_afresh);
	run_test(test_every_candidate_rejected_fails_then_backs_off);
	run_test(test_commit_failing_after_test_takes_next_candidate);
	run_test(test_known_bad_mode_held_at_next_start_is_forgotten);
	run_test(test_known_bad_mode_avoided_after_restart);
	run_test(test_known_bad_after_restart_tried_at_another_link);
	run_test(test_compositor_answering_from_a_step);
	return test_result();
}
