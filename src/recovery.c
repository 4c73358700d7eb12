/*
 * The recovery state machine's driver on wlroots: probes, tests and commits
 * through the connector's backend and output, one event loop timer, and the
 * reports (signals, the log, the store). Every decision is the machine's
 * (src/machine.c); nothing here chooses.
 */
#include <stdlib.h>
#include <wlr/types/wlr_output.h>
#include <linkguard/log.h>
#include <linkguard/manager.h>
#include <core/backend.h>
#include <core/clock.h>
#include <core/driver.h>
#include <core/incident.h>
#include <core/known_bad.h>
#include <core/names.h>
#include <core/recovery.h>
#include <core/sink.h>
#include <core/timer.h>

/*
 * A compositor's handler of a signal emitted during a step (a state report,
 * a fallback) may commit a mode of its own; its MODE_SET runs after the
 * step, never inside it. More than a few such commits in one step is a
 * compositor fighting the recovery.
 */
#define QUEUED_MAX 4

struct lg_queued_event {
	enum lg_machine_event_type type;
	bool has_previous;
	struct lg_mode previous;
};

struct lg_recovery {
	struct lg_driver driver;
	struct lg_machine_config config;
	struct lg_timer timer; // the machine's: the connector's one timer
	struct lg_incidents incidents;
	// Unplugs the connector: connector.c's, likewise.
	void (*gone)(struct lg_connector *conn);
	// The answers of synchronous feeds.
	enum lg_retry_result retry;
	bool has_recommend;
	struct lg_mode recommend;
	// MODE_SET: what the output ran before the compositor's commit
	const struct lg_mode *previous;
	// Fed while a step ran, to run after it (queue()).
	struct lg_queued_event queued[QUEUED_MAX];
	size_t n_queued;
};

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

static bool recovery_link_for(void *data, const struct lg_mode *mode,
		struct lg_link_params *link) {
	struct lg_connector *conn = data;
	return conn->impl->choose_link(conn, mode, link);
}

static bool recovery_skipped_at(void *data, const struct lg_mode *mode,
		const struct lg_link_params *link) {
	return known_bad_skipped_at(data, mode, link);
}

/*
 * The sink's read schedule as its settings and backend allow it now (a
 * device whose reads failed stops being read, i915 can stop retraining).
 */
static void configure_reads(struct lg_connector *conn) {
	struct lg_machine_config *config = &conn->recovery->config;
	uint32_t reads = sink_reads(conn);
	config->read_sink = reads != 0;
	config->sink_poll_ms = reads & LG_SINK_READS_POLL ?
		conn->options->sink_poll_ms : 0;
}

static void recovery_facts(void *data, struct lg_machine_facts *facts) {
	struct lg_connector *conn = data;
	configure_reads(conn);
	*facts = (struct lg_machine_facts){
		.now_ms = lg_now_ms(),
		.connected = conn->connected,
		.has_output = conn->output != NULL,
		.enabled = conn->output != NULL && conn->output->enabled,
		.requested = conn->has_requested ? &conn->requested : NULL,
		.current = conn->has_current ? &conn->current : NULL,
		.previous = conn->recovery->previous,
		.recommended = conn->has_recommended ? &conn->recommended : NULL,
		.modes = &conn->modes,
		.known_bad = &conn->known_bad,
		.link_for = conn->impl->choose_link != NULL ? recovery_link_for : NULL,
		.link_data = conn,
		.skipped_at = recovery_skipped_at,
		.skipped_data = conn,
	};
}

static enum lg_probe_result recovery_probe(void *data, bool *changed) {
	struct lg_connector *conn = data;
	struct lg_mode_list before;
	lg_mode_list_init(&before);
	bool copied = lg_mode_list_copy(&before, &conn->modes);
	enum lg_probe_result result = connector_probe(conn);
	connector_trace(conn, "forced probe done", NULL);
	*changed = !copied || !lg_mode_list_equal(&before, &conn->modes);
	lg_mode_list_finish(&before);
	if (result == LG_PROBE_OK) {
		lg_conn_log(conn, LG_INFO, "forced probe: %zu modes%s", conn->modes.len,
			*changed ? "" : ", as before");
	}
	return result;
}

static bool recovery_test(void *data, const struct lg_mode *mode) {
	struct lg_connector *conn = data;
	connector_trace(conn, "test", mode);
	bool ok = conn->impl->check_mode(conn, mode);
	connector_trace(conn, ok ? "test passed" : "test failed", NULL);
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
bool recovery_commit_mode(struct lg_connector *conn, const struct lg_mode *mode) {
	struct wlr_output_state state;
	bool ok = recovery_build_state(conn, &state, mode);
	if (ok) {
		ok = commit_state(conn, &state);
		wlr_output_state_finish(&state);
	}
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

/* Off behind the compositor where the backend can, else through wlroots. */
static void blank(struct lg_connector *conn) {
	if (conn->impl->blank != NULL && conn->impl->blank(conn)) {
		return;
	}
	lg_conn_log(conn, LG_INFO, "the output goes off and on instead");
	conn->relighting = true;
	disable_output(conn);
	conn->relighting = false;
}

static bool recovery_commit(void *data, const struct lg_action *action) {
	struct lg_connector *conn = data;
	char buf[64];
	lg_conn_log(conn, LG_INFO, "retraining at %s: %s",
		lg_mode_format(&action->mode, buf, sizeof(buf)), action->why);
	incident_commit(&conn->recovery->incidents);
	const struct lg_mode *current = conn->output->enabled && conn->has_current ?
		&conn->current : NULL;
	// link-status as the hotplug that brought the BAD read it, or as the
	// last commit left it: read once per event, never again here.
	if (!lg_driver_commit_retrains(current, &action->mode, conn->link_status)) {
		lg_conn_log(conn, LG_INFO, "%s runs with link-status GOOD: the kernel "
			"would retrain nothing; its CRTC goes off first", buf);
		blank(conn);
	}
	connector_trace(conn, "commit", &action->mode);
	bool ok = recovery_commit_mode(conn, &action->mode);
	connector_trace(conn, "commit returned", NULL);
	return ok;
}

/*
 * The sink's DPCD, read when the machine asks: a dark link it reports opens
 * an incident of its own (report_sink_dark()), until the step is over.
 */
static bool recovery_read_sink(void *data, bool *unlocked,
		struct lg_sink_errors *errors) {
	return sink_read(data, unlocked, errors);
}

static void handle_timer(void *data) {
	recovery_feed(data, LG_MACHINE_TIMER);
}

static void arm_timer(struct lg_connector *conn, uint32_t ms) {
	if (!lg_timer_arm(&conn->recovery->timer, ms)) {
		// P1 needs the timer: say so loudly; the next hotplug retries.
		lg_conn_log(conn, LG_ERROR, "failed to create a timer");
	}
}

/*
 * linkguard set a mode other than the requested one, a fallback or a step
 * up (what): logged with why the requested mode does not run.
 */
static void leave_requested(struct lg_connector *conn, const struct lg_action *action,
		const char *what) {
	char from_buf[64], to_buf[64];
	lg_conn_log(conn, LG_INFO, "%s %s -> %s (%s)", what,
		lg_mode_format(&action->from, from_buf, sizeof(from_buf)),
		lg_mode_format(&action->mode, to_buf, sizeof(to_buf)),
		lg_fallback_reason_name(action->reason));
}

static void report_fallback(struct lg_connector *conn, const struct lg_action *action) {
	struct lg_fallback *fallback = &conn->last_fallback;
	*fallback = (struct lg_fallback){
		.connector = conn,
		.reason = action->reason,
		.from = action->from,
		.to = action->mode,
	};
	clock_gettime(CLOCK_MONOTONIC, &fallback->when);
	conn->has_last_fallback = true;
	leave_requested(conn, action, "fallback");
	wl_signal_emit_mutable(&conn->manager->events.fallback, fallback);
}

static void report_state(struct lg_connector *conn) {
	enum lg_link_state state = conn->recovery->driver.machine.state;
	lg_conn_log(conn, LG_INFO, "state %s -> %s", lg_link_state_name(conn->state),
		lg_link_state_name(state));
	conn->state = state;
	// An unplug or a disable ends an incident with no link to speak of.
	bool running = conn->connected && conn->output != NULL &&
		conn->output->enabled && conn->has_current;
	if ((state == LG_LINK_DEGRADED || state == LG_LINK_GOOD) && running) {
		char buf[64];
		lg_conn_log(conn, LG_INFO, "link held at %s, link-status %s",
			lg_mode_format(&conn->current, buf, sizeof(buf)),
			lg_link_status_name(conn->link_status));
	}
	connector_changed(conn);
}

/* The machine's verdict on the sink's reads: it lost the link. */
static void report_sink_dark(struct lg_connector *conn, const struct lg_action *action) {
	const struct lg_sink_status *status = &conn->sink_status;
	lg_conn_log(conn, LG_ERROR, "the sink has lost the link for %u ms with "
		"link-status GOOD: lanes locked 0x%x of %u, %saligned", action->ms,
		status->lanes_locked, status->link.lanes, status->aligned ? "" : "not ");
	// The incident this opens is the sink's, until the step is over (stepped()).
	conn->recovery->incidents.unlocked = true;
}

/*
 * A minute's symbol errors, and with them the machine's verdict: clients
 * hear both now (sink_status), not at the connector's next change.
 */
static void report_error_rates(struct lg_connector *conn, const struct lg_action *action) {
	for (int lane = 0; lane < 4; lane++) {
		conn->error_rates[lane] = action->rates[lane];
	}
	conn->has_error_rates = true;
	if (action->verdict) {
		conn->link_errors = action->over;
		lg_conn_log(conn, action->over ? LG_ERROR : LG_INFO, "symbol errors per minute "
			"%u %u %u %u (lanes 0-3), threshold %u: %s", action->rates[0],
			action->rates[1], action->rates[2], action->rates[3], action->threshold,
			action->over ? "link degraded (link-errors)" : "within it");
	}
	connector_changed(conn);
}

static void recovery_act(void *data, const struct lg_action *action) {
	struct lg_connector *conn = data;
	struct lg_recovery *recovery = conn->recovery;
	switch (action->type) {
	case LG_ACTION_ARM_TIMER:
		lg_conn_log(conn, LG_DEBUG, "recovery: timer %u ms", action->ms);
		arm_timer(conn, action->ms);
		return;
	case LG_ACTION_STATE:
		report_state(conn);
		incident_report(&recovery->incidents, action);
		return;
	case LG_ACTION_FALLBACK:
		incident_report(&recovery->incidents, action);
		report_fallback(conn, action);
		return;
	case LG_ACTION_STEP_UP:
		// A better mode than the one before: no fallback, for the
		// compositor or its clients; the incident says it.
		incident_report(&recovery->incidents, action);
		leave_requested(conn, action, "step up");
		return;
	case LG_ACTION_RESTORED:
		incident_report(&recovery->incidents, action);
		wl_signal_emit_mutable(&conn->manager->events.restored, conn);
		return;
	case LG_ACTION_FAILED:
		incident_report(&recovery->incidents, action);
		if (action->ms == 0) {
			lg_conn_log(conn, LG_ERROR, "recovery failed: %s; waiting for a "
				"replug, a retry or a mode set", lg_failure_name(action->failure));
		} else {
			lg_conn_log(conn, LG_ERROR, "recovery failed: %s; trying again in "
				"%u ms", lg_failure_name(action->failure), action->ms);
		}
		wl_signal_emit_mutable(&conn->manager->events.failed, conn);
		return;
	case LG_ACTION_FLAPPING:
		incident_report(&recovery->incidents, action);
		lg_conn_log(conn, LG_INFO, "link flapping (%u BADs at a mode that fits "
			"within %u ms): %s, further steps at least %u ms apart",
			recovery->config.flap_count, recovery->config.flap_window_ms,
			action->why, action->ms);
		return;
	case LG_ACTION_DISABLE:
		lg_conn_log(conn, LG_ERROR, "the kernel lists no mode: output off");
		disable_output(conn);
		return;
	case LG_ACTION_REQUESTED:
		conn->requested = action->mode;
		conn->has_requested = true;
		return;
	case LG_ACTION_RECOMMEND:
		recovery->has_recommend = action->has_mode;
		recovery->recommend = action->mode;
		return;
	case LG_ACTION_KNOWN_BAD_ADD:
		known_bad_add(conn, &action->mode, &action->link);
		return;
	case LG_ACTION_KNOWN_BAD_HELD:
		known_bad_held(conn, &action->mode);
		return;
	case LG_ACTION_RETRY_RESULT:
		recovery->retry = action->retry;
		return;
	case LG_ACTION_SINK_DARK:
		report_sink_dark(conn, action);
		return;
	case LG_ACTION_ERROR_RATES:
		report_error_rates(conn, action);
		return;
	case LG_ACTION_PROBE:
	case LG_ACTION_TEST:
	case LG_ACTION_COMMIT:
	case LG_ACTION_READ_SINK:
		return; // the driver's
	}
}

static const struct lg_driver_impl recovery_impl = {
	.facts = recovery_facts,
	.probe = recovery_probe,
	.test = recovery_test,
	.commit = recovery_commit,
	.read_sink = recovery_read_sink,
	.act = recovery_act,
};

bool recovery_create(struct lg_connector *conn,
		void (*gone)(struct lg_connector *conn)) {
	struct lg_recovery *recovery = calloc(1, sizeof(*recovery));
	if (recovery == NULL) {
		return false;
	}
	recovery->gone = gone;
	lg_timer_init(&recovery->timer, conn->manager->event_loop, handle_timer, conn);
	lg_driver_init(&recovery->driver, &recovery->config, &recovery_impl, conn);
	incidents_init(&recovery->incidents, conn, &recovery->driver);
	conn->recovery = recovery;
	return true;
}

void recovery_configure(struct lg_connector *conn) {
	const struct lg_options *options = conn->options;
	conn->recovery->config = (struct lg_machine_config){
		.policy = options->policy,
		.floors = options->floors,
		.recover = options->recover,
		.settle_ms = options->settle_ms,
		.flap_count = options->flap_count,
		.flap_window_ms = options->flap_window_ms,
		.max_tests = options->max_tests,
		.backoff_min_ms = options->backoff_min_ms,
		.backoff_max_ms = options->backoff_max_ms,
		.link_errors_step_down = options->link_errors_step_down,
		.sink_settle_ms = options->sink_settle_ms,
		.link_errors_per_min = options->link_errors_per_min,
		// read_sink, sink_poll_ms: configure_reads(), at every step
	};
}

void recovery_destroy(struct lg_connector *conn) {
	struct lg_recovery *recovery = conn->recovery;
	if (recovery == NULL) {
		return;
	}
	lg_timer_finish(&recovery->timer);
	lg_driver_finish(&recovery->driver);
	free(recovery);
	conn->recovery = NULL;
}

/*
 * A step is over. A sink its probe found gone is unplugged only now, a
 * step of its own: the one that probed ended unanswered.
 */
static void stepped(struct lg_connector *conn, bool present) {
	incident_rest(&conn->recovery->incidents);
	conn->recovery->incidents.unlocked = false;
	if (!present) {
		conn->recovery->gone(conn);
	}
}

static bool feed(struct lg_connector *conn, enum lg_machine_event_type type) {
	lg_conn_log(conn, LG_DEBUG, "recovery: %s", lg_machine_event_name(type));
	return lg_driver_feed(&conn->recovery->driver, type);
}

/* Whether the event waits for the step that runs (it is queued). */
static bool queue(struct lg_connector *conn, enum lg_machine_event_type type,
		const struct lg_mode *previous) {
	struct lg_recovery *recovery = conn->recovery;
	if (!recovery->driver.stepping) {
		return false;
	}
	if (recovery->n_queued == QUEUED_MAX) {
		lg_conn_log(conn, LG_ERROR, "recovery: %s during a step, more than "
			"%d: dropped", lg_machine_event_name(type), QUEUED_MAX);
		return true;
	}
	struct lg_queued_event *queued = &recovery->queued[recovery->n_queued++];
	*queued = (struct lg_queued_event){
		.type = type,
		.has_previous = previous != NULL,
		.previous = previous != NULL ? *previous : (struct lg_mode){0},
	};
	return true;
}

/* The event, then what the handlers of its step fed meanwhile. */
static void feed_and_drain(struct lg_connector *conn, enum lg_machine_event_type type) {
	struct lg_recovery *recovery = conn->recovery;
	bool present = feed(conn, type);
	for (size_t i = 0; present && i < recovery->n_queued; i++) {
		struct lg_queued_event queued = recovery->queued[i];
		recovery->previous = queued.has_previous ? &queued.previous : NULL;
		present = feed(conn, queued.type);
		recovery->previous = NULL;
	}
	recovery->n_queued = 0;
	stepped(conn, present);
}

void recovery_feed(struct lg_connector *conn, enum lg_machine_event_type type) {
	if (!queue(conn, type, NULL)) {
		feed_and_drain(conn, type);
	}
}

void recovery_committed(struct lg_connector *conn, bool ok) {
	stepped(conn, lg_driver_committed(&conn->recovery->driver, ok));
}

void recovery_mode_set(struct lg_connector *conn, const struct lg_mode *previous) {
	if (queue(conn, LG_MACHINE_MODE_SET, previous)) {
		return;
	}
	conn->recovery->previous = previous;
	feed_and_drain(conn, LG_MACHINE_MODE_SET);
	conn->recovery->previous = NULL;
}

struct lg_incidents *recovery_incidents(struct lg_connector *conn) {
	return &conn->recovery->incidents;
}

const struct lg_history *connector_history(const struct lg_connector *conn) {
	return &conn->recovery->incidents.history;
}

struct lg_driver *recovery_driver(struct lg_connector *conn) {
	return &conn->recovery->driver;
}

bool recovery_answering(const struct lg_connector *conn) {
	return conn->recovery->driver.machine.bad_pending;
}

bool recovery_idle(const struct lg_connector *conn) {
	return conn->recovery->driver.machine.timer == MACHINE_TIMER_NONE;
}

bool recovery_recommend(struct lg_connector *conn, struct lg_mode *mode) {
	struct lg_recovery *recovery = conn->recovery;
	recovery->has_recommend = false;
	recovery_feed(conn, LG_MACHINE_RECOMMEND);
	*mode = recovery->recommend;
	return recovery->has_recommend;
}

enum lg_retry_result lg_connector_retry(struct lg_connector *conn) {
	struct lg_recovery *recovery = conn->recovery;
	if (recovery->driver.stepping) {
		// Asked from a handler of linkguard's own signals: its answer
		// would have to come from inside the step that emitted them.
		lg_conn_log(conn, LG_INFO, "retry: busy, asked during a recovery step");
		return LG_RETRY_UNAVAILABLE;
	}
	recovery->retry = LG_RETRY_UNAVAILABLE;
	recovery->incidents.retrying = true;
	recovery_feed(conn, LG_MACHINE_RETRY);
	recovery->incidents.retrying = false;
	if (recovery->retry == LG_RETRY_REJECTED) {
		char buf[64];
		lg_conn_log(conn, LG_INFO, "retry: %s not accepted",
			lg_mode_format(&conn->requested, buf, sizeof(buf)));
	}
	return recovery->retry;
}
