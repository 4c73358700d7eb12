#include <inttypes.h>
#include <stdlib.h>
#include <wlr/types/wlr_output.h>
#include <linkguard/log.h>
#include <linkguard/manager.h>
#include <core/connector.h>

/*
 * The kernel's fallback ladder has at most 4 rates x 3 lane counts (7 rates
 * with UHBR): one recovery commit per rung is plenty. Past that the link is
 * not converging and we stop rather than loop modesets.
 */
#define MAX_COMMITS_PER_INCIDENT 16

void recovery_cancel(struct lg_connector *conn) {
	if (conn->settle_timer != NULL) {
		wl_event_source_remove(conn->settle_timer);
		conn->settle_timer = NULL;
	}
	if (conn->hold_timer != NULL) {
		wl_event_source_remove(conn->hold_timer);
		conn->hold_timer = NULL;
	}
}

bool recovery_build_state(struct lg_connector *conn,
		struct wlr_output_state *state, const struct lg_mode *mode) {
	wlr_output_state_init(state);
	wlr_output_state_set_enabled(state, true);
	if (!conn->impl->set_mode(conn, state, mode)) {
		wlr_output_state_finish(state);
		return false;
	}
	return true;
}

/* What the kernel's atomic check says of mode on the link as it is now. */
static bool test_mode(struct lg_connector *conn, const struct lg_mode *mode) {
	if (conn->impl->check_mode != NULL && !conn->impl->check_mode(conn, mode)) {
		return false;
	}
	struct wlr_output_state state;
	if (!recovery_build_state(conn, &state, mode)) {
		return false;
	}
	bool ok = wlr_output_test_state(conn->output, &state);
	wlr_output_state_finish(&state);
	return ok;
}

/* Through the compositor's hook when it set one (linkguard/commit.h). */
static bool commit_state(struct lg_connector *conn,
		const struct wlr_output_state *state) {
	const struct lg_options *options = &conn->manager->options;
	conn->committing = true;
	bool ok = options->commit != NULL ?
		options->commit(conn->output, state, options->commit_data) :
		wlr_output_commit_state(conn->output, state);
	conn->committing = false;
	return ok;
}

/*
 * Every recovery commit is a full modeset; on DRM wlroots adds
 * ALLOW_MODESET and writes link-status GOOD with it, which is what the
 * kernel asks of user space after BAD.
 */
static bool commit_mode(struct lg_connector *conn, const struct lg_mode *mode) {
	struct wlr_output_state state;
	if (!recovery_build_state(conn, &state, mode)) {
		return false;
	}
	bool ok = commit_state(conn, &state);
	wlr_output_state_finish(&state);
	if (!ok) {
		char buf[64];
		lg_conn_log(conn, LG_ERROR, "commit of %s failed",
			lg_mode_format(mode, buf, sizeof(buf)));
	}
	return ok;
}

static void disable_output(struct lg_connector *conn) {
	struct wlr_output_state state;
	wlr_output_state_init(&state);
	wlr_output_state_set_enabled(&state, false);
	if (!commit_state(conn, &state)) {
		lg_conn_log(conn, LG_ERROR, "failed to disable the output");
	}
	wlr_output_state_finish(&state);
}

/* restored: at the requested mode again after a fallback or a failure. */
static void emit_restored_if_back(struct lg_connector *conn) {
	if (!conn->fallen_back || conn->state != LG_LINK_GOOD) {
		return;
	}
	conn->fallen_back = false;
	wl_signal_emit_mutable(&conn->manager->events.restored, conn);
}

static int handle_settle_timer(void *data) {
	struct lg_connector *conn = data;
	wl_event_source_remove(conn->settle_timer);
	conn->settle_timer = NULL;

	connector_handle_event(conn, LG_EVENT_SETTLED);
	conn->last_working = conn->current;
	conn->has_last_working = conn->has_current;
	conn->incident_commits = 0;
	if (conn->has_requested && connector_at_requested(conn)) {
		known_bad_held(conn, &conn->requested);
	}
	char buf[64];
	lg_conn_log(conn, LG_INFO, "link held at %s, link-status %s",
		lg_mode_format(&conn->current, buf, sizeof(buf)),
		lg_link_status_name(conn->link_status));
	emit_restored_if_back(conn);
	return 0;
}

static void arm_timer(struct lg_connector *conn, struct wl_event_source **timer,
		wl_event_loop_timer_func_t func, uint32_t ms) {
	if (*timer == NULL) {
		*timer = wl_event_loop_add_timer(conn->manager->event_loop, func, conn);
		if (*timer == NULL) {
			lg_conn_log(conn, LG_ERROR, "failed to create a timer");
			return;
		}
	}
	// A zero delay disarms a timerfd: wait at least a millisecond.
	wl_event_source_timer_update(*timer, ms > 0 ? ms : 1);
}

static void report_fallback(struct lg_connector *conn, enum lg_fallback_reason reason,
		const struct lg_mode *from, const struct lg_mode *to) {
	struct lg_fallback *fallback = &conn->last_fallback;
	*fallback = (struct lg_fallback){
		.connector = conn,
		.reason = reason,
		.from = *from,
		.to = *to,
	};
	clock_gettime(CLOCK_MONOTONIC, &fallback->when);
	conn->has_last_fallback = true;
	conn->fallen_back = true;
	char from_buf[64], to_buf[64];
	lg_conn_log(conn, LG_INFO, "fallback %s -> %s (%s)",
		lg_mode_format(from, from_buf, sizeof(from_buf)),
		lg_mode_format(to, to_buf, sizeof(to_buf)),
		lg_fallback_reason_name(reason));
	wl_signal_emit_mutable(&conn->manager->events.fallback, fallback);
}

static void fail(struct lg_connector *conn, const char *why) {
	lg_conn_log(conn, LG_ERROR, "no mode fits the link (%s): disabling output",
		why);
	recovery_cancel(conn);
	disable_output(conn);
	conn->fallen_back = true;
	connector_handle_event(conn, LG_EVENT_NO_MODE);
	wl_signal_emit_mutable(&conn->manager->events.failed, conn);
}

/* Why the requested mode is not the one running after a recovery. */
static enum lg_fallback_reason fallback_reason(struct lg_connector *conn,
		const struct lg_mode *requested) {
	bool listed = false;
	for (size_t i = 0; i < conn->modes.len && !listed; i++) {
		listed = lg_mode_same_timing(&conn->modes.modes[i], requested);
	}
	if (!listed) {
		return LG_FALLBACK_MODE_PRUNED;
	}
	return lg_mode_list_find(&conn->known_bad, requested) >= 0 ?
		LG_FALLBACK_KNOWN_BAD : LG_FALLBACK_TEST_FAILED;
}

static const struct lg_mode *preferred_or_first(const struct lg_mode_list *modes) {
	for (size_t i = 0; i < modes->len; i++) {
		if (modes->modes[i].preferred) {
			return &modes->modes[i];
		}
	}
	return modes->len > 0 ? &modes->modes[0] : NULL;
}

/*
 * Walks the policy's ranking of conn->modes (the list from the last forced
 * probe) and returns the first candidate the kernel accepts in a test, at
 * most max_tests of them. skip, if not NULL, was tested already.
 */
static const struct lg_mode *pick_candidate(struct lg_connector *conn,
		const struct lg_mode *requested, const struct lg_mode *skip) {
	size_t *order = calloc(conn->modes.len + 1, sizeof(*order));
	if (order == NULL) {
		lg_conn_log(conn, LG_ERROR, "allocation failed");
		return NULL;
	}
	size_t n = lg_policy_rank(conn->manager->options.policy, requested,
		&conn->modes, &conn->known_bad, order);
	const struct lg_mode *chosen = NULL;
	uint32_t tests = 0;
	for (size_t i = 0; i < n && chosen == NULL; i++) {
		const struct lg_mode *mode = &conn->modes.modes[order[i]];
		if (skip != NULL && lg_mode_equal(mode, skip)) {
			continue;
		}
		if (tests++ >= conn->manager->options.max_tests) {
			lg_conn_log(conn, LG_ERROR, "gave up after %" PRIu32 " tests",
				conn->manager->options.max_tests);
			break;
		}
		char buf[64];
		if (test_mode(conn, mode)) {
			lg_conn_log(conn, LG_INFO, "chose %s: candidate %zu of %zu (%s)",
				lg_mode_format(mode, buf, sizeof(buf)), i + 1, n,
				lg_policy_name(conn->manager->options.policy));
			chosen = mode;
		} else {
			lg_conn_log(conn, LG_INFO, "test rejected %s",
				lg_mode_format(mode, buf, sizeof(buf)));
		}
	}
	free(order);
	return chosen;
}

/*
 * Answers link-status BAD, first half: the mode to commit, tested. The
 * kernel has lowered the link rate or lane count and prunes modes that no
 * longer fit on the next forced probe, at its minimum bpp (18 for RGB):
 * "user-space is expected to pick a new mode if the current one has
 * disappeared and perform a new modeset with link-status set to GOOD"
 * (drm_connector.c). Returns false when the recovery ended here: failed,
 * or the sink left.
 */
bool recovery_plan(struct lg_connector *conn, struct recovery_plan *plan) {
	*plan = (struct recovery_plan){ .conn = conn, .from = conn->current };
	if (conn->incident_commits >= MAX_COMMITS_PER_INCIDENT) {
		fail(conn, "the link does not converge");
		return false;
	}

	// The same mode first, without a probe: the kernel may still fit it at
	// a lower bpp or with DSC.
	char buf[64];
	bool tested_current = conn->has_current &&
		lg_mode_list_find(&conn->known_bad, &conn->current) < 0;
	if (tested_current && test_mode(conn, &conn->current)) {
		lg_conn_log(conn, LG_INFO, "retraining at %s: same mode passed its test",
			lg_mode_format(&conn->current, buf, sizeof(buf)));
		plan->mode = conn->current;
		return true;
	}

	if (!connector_probe(conn)) {
		// A sink that left during the probe is an unplug, not a failure.
		if (conn->connected) {
			fail(conn, "forced probe failed");
		}
		return false;
	}
	lg_conn_log(conn, LG_INFO, "forced probe: %zu modes remain", conn->modes.len);
	const struct lg_mode *requested = conn->has_requested ? &conn->requested :
		preferred_or_first(&conn->modes);
	if (requested != NULL) {
		plan->requested = *requested;
		plan->has_requested = true;
	}
	const struct lg_mode *mode = pick_candidate(conn, requested,
		tested_current ? &plan->from : NULL);
	if (mode == NULL) {
		fail(conn, conn->modes.len == 0 ? "the kernel lists no mode" :
			"every candidate was rejected");
		return false;
	}
	plan->mode = *mode;
	return true;
}

/* Second half, once plan->mode is committed: wait for the link to hold. */
void recovery_committed(const struct recovery_plan *plan) {
	struct lg_connector *conn = plan->conn;
	conn->incident_commits++;
	connector_handle_event(conn, LG_EVENT_RECOVERY_COMMITTED);
	arm_timer(conn, &conn->settle_timer, handle_settle_timer,
		conn->manager->options.settle_ms);
	if (plan->has_requested &&
			!lg_mode_same_timing(&plan->mode, &plan->requested) &&
			!lg_mode_same_timing(&plan->mode, &plan->from)) {
		enum lg_fallback_reason reason = fallback_reason(conn, &plan->requested);
		if (reason != LG_FALLBACK_KNOWN_BAD) {
			// The link could not carry it: so it goes next boot too.
			known_bad_add(conn, &plan->requested);
		}
		report_fallback(conn, reason, &plan->from, &plan->mode);
	}
}

void recovery_run(struct lg_connector *conn) {
	struct recovery_plan plan;
	while (recovery_plan(conn, &plan)) {
		if (commit_mode(conn, &plan.mode)) {
			recovery_committed(&plan);
			return;
		}
		// A commit that fails after a passing test: the mode is bad for
		// this monitor until replug, plan again without it.
		known_bad_add(conn, &plan.mode);
	}
}

static int handle_hold_timer(void *data) {
	struct lg_connector *conn = data;
	wl_event_source_remove(conn->hold_timer);
	conn->hold_timer = NULL;
	lg_flap_reset(&conn->flaps);
	connector_handle_event(conn, LG_EVENT_HOLD_EXPIRED);
	lg_conn_log(conn, LG_INFO, "flap hold over");
	// A BAD that came in during the hold is answered now, once.
	lg_connector_hotplug(conn);
	return 0;
}

/*
 * The link keeps going BAD after it held: stop chasing it. One modeset back
 * to the last mode that held brings the picture back; BADs that follow are
 * not answered until the flap window has passed, so a flapping link costs
 * at most one modeset per window.
 */
void recovery_hold(struct lg_connector *conn) {
	const struct lg_mode *mode = conn->has_last_working ?
		&conn->last_working : &conn->current;
	const struct lg_mode from = conn->current;
	char buf[64];
	lg_conn_log(conn, LG_INFO, "link flapping (%" PRIu32 " BADs within %" PRIu32
		" ms): holding at %s", conn->manager->options.flap_count,
		conn->manager->options.flap_window_ms,
		lg_mode_format(mode, buf, sizeof(buf)));
	recovery_cancel(conn);
	connector_handle_event(conn, LG_EVENT_FLAP);
	if (conn->has_current && test_mode(conn, mode) && commit_mode(conn, mode)) {
		if (!lg_mode_same_timing(mode, &from)) {
			report_fallback(conn, LG_FALLBACK_FLAPPING, &from, mode);
		}
	}
	arm_timer(conn, &conn->hold_timer, handle_hold_timer,
		conn->manager->options.flap_window_ms);
}

enum lg_retry_result lg_connector_retry(struct lg_connector *conn) {
	if (!conn->connected || conn->output == NULL || !conn->has_requested ||
			conn->state == LG_LINK_BAD || conn->settle_timer != NULL) {
		return LG_RETRY_UNAVAILABLE;
	}
	// The kernel's list may have grown since (a new cable, a replug).
	if (!connector_probe(conn) || !test_mode(conn, &conn->requested)) {
		char buf[64];
		lg_conn_log(conn, LG_INFO, "retry: %s not accepted",
			lg_mode_format(&conn->requested, buf, sizeof(buf)));
		return LG_RETRY_REJECTED;
	}
	// An explicit request overrides the flap hold.
	recovery_cancel(conn);
	lg_flap_reset(&conn->flaps);
	connector_handle_event(conn, LG_EVENT_HOLD_EXPIRED);
	conn->incident_commits = 0;
	if (!commit_mode(conn, &conn->requested)) {
		return LG_RETRY_REJECTED;
	}
	recovery_committed(&(struct recovery_plan){
		.conn = conn,
		.mode = conn->requested,
		.from = conn->current,
	});
	return LG_RETRY_COMMITTED;
}

void recovery_handle_mode_set(struct lg_connector *conn) {
	if (conn->settle_timer != NULL) {
		wl_event_source_remove(conn->settle_timer);
		conn->settle_timer = NULL;
	}
	conn->incident_commits = 0;
	connector_handle_event(conn, LG_EVENT_MODE_SET);
	emit_restored_if_back(conn);
}

bool recovery_choose_initial(struct lg_connector *conn, struct lg_mode *mode) {
	const struct lg_mode *requested = conn->has_requested ? &conn->requested :
		preferred_or_first(&conn->modes);
	if (requested == NULL) {
		return false;
	}
	// What the compositor would have picked, had linkguard not known
	// better (a known-bad mode): a retry goes back to it.
	conn->requested = *requested;
	conn->has_requested = true;
	const struct lg_mode *chosen = pick_candidate(conn, requested, NULL);
	if (chosen == NULL) {
		return false;
	}
	*mode = *chosen;
	return true;
}
