/*
 * What came of each incident on a connector, kept in its history. The
 * machine decides (src/machine.c); this watches the driver carry out its
 * decisions: an incident begins when the machine leaves good or degraded,
 * or when linkguard modesets, and ends when recovery comes to rest (no
 * answer, settle or budget awaited), where the connector's state says how
 * it ended. Recording at rest rather than per report keeps a cascade
 * (BAD, fallback, BAD again, lower fallback) one incident, from the mode
 * that failed to the mode that held.
 */
#include <inttypes.h>
#include <stdio.h>
#include <time.h>
#include <linkguard/log.h>
#include <linkguard/manager.h>
#include <core/backend.h>
#include <core/clock.h>
#include <core/driver.h>
#include <core/incident.h>
#include <core/journal.h>

void incidents_init(struct lg_incidents *incidents, struct lg_connector *conn,
		const struct lg_driver *driver) {
	*incidents = (struct lg_incidents){
		.conn = conn,
		.driver = driver,
		.last_reason = LG_INCIDENT_LINK_BAD,
	};
	lg_history_init(&incidents->history);
}

static void read_connector(const struct lg_connector *conn, struct lg_mode *mode,
		struct lg_link_params *link) {
	*mode = conn->has_current ? conn->current : (struct lg_mode){0};
	*link = conn->has_link_params ? conn->link_params : (struct lg_link_params){0};
}

static void open_incident(struct lg_incidents *incidents, enum lg_incident_reason reason) {
	struct lg_connector *conn = incidents->conn;
	incidents->open = true;
	incidents->restored = false;
	incidents->fell_back = false;
	incidents->stepped_up = false;
	incidents->pending = (struct lg_incident){
		.connector = conn,
		.reason = reason,
	};
	read_connector(conn, &incidents->pending.mode_before,
		&incidents->pending.link_before);
	clock_gettime(CLOCK_REALTIME, &incidents->pending.when);
	incidents->opened_ms = lg_now_ms();
}

/*
 * Without a cause of its own (a step while flapping, a backoff's try) an
 * incident continues the last one.
 */
static void ensure_open(struct lg_incidents *incidents, bool link_bad) {
	if (incidents->open) {
		return;
	}
	open_incident(incidents, incidents->retrying ? LG_INCIDENT_RETRY :
		incidents->unlocked ? LG_INCIDENT_SINK_UNLOCKED :
		link_bad ? LG_INCIDENT_LINK_BAD : incidents->last_reason);
}

/*
 * The requested mode back without a modeset of linkguard's (the
 * compositor set it, on a replug): it follows the last incident, which
 * says what ran before.
 */
static void restore_without_incident(struct lg_incidents *incidents) {
	ensure_open(incidents, false);
	size_t len = lg_history_len(&incidents->history);
	if (len > 0) {
		const struct lg_incident *last = lg_history_at(&incidents->history, len - 1);
		incidents->pending.mode_before = last->mode_after;
		incidents->pending.link_before = last->link_after;
	}
}

static enum lg_incident_reason failure_reason(enum lg_failure failure) {
	switch (failure) {
	case LG_FAILURE_NO_MODES:
		return LG_INCIDENT_NO_MODES;
	case LG_FAILURE_ALL_REJECTED:
		return LG_INCIDENT_ALL_REJECTED;
	case LG_FAILURE_PROBE:
		return LG_INCIDENT_PROBE_FAILED;
	case LG_FAILURE_NONE_LOWER:
		return LG_INCIDENT_SINK_UNLOCKED;
	}
	return LG_INCIDENT_ALL_REJECTED;
}

/* The fallback reasons after the first four have values of their own here. */
static enum lg_incident_reason fallback_incident(enum lg_fallback_reason reason) {
	switch (reason) {
	case LG_FALLBACK_SINK_UNLOCKED:
		return LG_INCIDENT_SINK_UNLOCKED;
	case LG_FALLBACK_LINK_ERRORS:
		return LG_INCIDENT_LINK_ERRORS;
	default:
		return (enum lg_incident_reason)reason;
	}
}

void incident_report(struct lg_incidents *incidents, const struct lg_action *action) {
	const struct lg_connector *conn = incidents->conn;
	switch (action->type) {
	case LG_ACTION_STATE:
		if (conn->state != LG_LINK_GOOD && conn->state != LG_LINK_DEGRADED) {
			ensure_open(incidents, conn->state == LG_LINK_BAD);
		}
		return;
	case LG_ACTION_FALLBACK:
	case LG_ACTION_STEP_UP:
		// The reason says why the requested mode does not run.
		ensure_open(incidents, false);
		incidents->pending.reason = fallback_incident(action->reason);
		incidents->fell_back |= action->type == LG_ACTION_FALLBACK;
		incidents->stepped_up |= action->type == LG_ACTION_STEP_UP;
		return;
	case LG_ACTION_FLAPPING:
		ensure_open(incidents, false);
		incidents->pending.reason = LG_INCIDENT_FLAPPING;
		return;
	case LG_ACTION_RESTORED:
		if (!incidents->open) {
			restore_without_incident(incidents);
		}
		incidents->restored = true;
		return;
	case LG_ACTION_FAILED:
		// A backoff's try that found nothing new to commit is no new incident.
		if (incidents->open) {
			incidents->pending.reason = failure_reason(action->failure);
		}
		return;
	default:
		return;
	}
}

void incident_commit(struct lg_incidents *incidents) {
	ensure_open(incidents, false);
}

static bool at_requested(const struct lg_connector *conn) {
	return conn->has_current && conn->has_requested &&
		lg_mode_same_timing(&conn->current, &conn->requested);
}

/* Nothing awaited: no answer, no settle, no budget; the state says where. */
static bool at_rest(const struct lg_incidents *incidents) {
	const struct lg_connector *conn = incidents->conn;
	const struct lg_driver *driver = incidents->driver;
	const struct lg_machine *m = &driver->machine;
	if (driver->has_deferred || m->await != MACHINE_AWAIT_NONE ||
			m->timer == MACHINE_TIMER_SETTLE || m->timer == MACHINE_TIMER_GATE) {
		return false;
	}
	if (!conn->connected || conn->output == NULL) {
		return true; // nothing left to recover, whatever the state says
	}
	switch (m->state) {
	case LG_LINK_BAD:
	case LG_LINK_RETRAINING:
		return false;
	case LG_LINK_FLAPPING:
		// Stepped back up to the requested mode: restored once quiet.
		return !at_requested(conn);
	default:
		return true;
	}
}

static enum lg_incident_outcome outcome(const struct lg_connector *conn,
		const struct lg_incidents *incidents) {
	const struct lg_incident *incident = &incidents->pending;
	if (!conn->connected || conn->output == NULL) {
		return LG_INCIDENT_GONE;
	}
	bool same = lg_mode_same_timing(&incident->mode_before, &incident->mode_after);
	if (conn->state == LG_LINK_FAILED) {
		return LG_INCIDENT_FAILED;
	}
	if (incidents->stepped_up && !incidents->fell_back && !same &&
			!at_requested(conn)) {
		// Only up since it began, to a mode still off the requested one;
		// the machine may call the link flapping until its quiet timer
		// ends the episode.
		return LG_INCIDENT_STEP_UP;
	}
	switch (conn->state) {
	case LG_LINK_FLAPPING:
		return LG_INCIDENT_HELD;
	case LG_LINK_GOOD:
		return incidents->restored || !same ? LG_INCIDENT_RESTORED :
			LG_INCIDENT_RETRAINED;
	default:
		return same ? LG_INCIDENT_RETRAINED : LG_INCIDENT_DEGRADED;
	}
}

/* The link as text, or NULL when unknown. */
static const char *link_format(const struct lg_link_params *link, char *buf,
		size_t size) {
	if (link->lanes == 0) {
		return NULL;
	}
	snprintf(buf, size, "%" PRIu32 " x %" PRIu32 " Mbit/s", link->lanes,
		link->rate_mbps);
	return buf;
}

/* The mode as text, or NULL when none ran. */
static const char *mode_format(const struct lg_mode *mode, char *buf, size_t size) {
	return mode->width == 0 ? NULL : lg_mode_format(mode, buf, size);
}

static const char *or_unknown(const char *text, const char *unknown) {
	return text != NULL ? text : unknown;
}

static void record(struct lg_incidents *incidents) {
	struct lg_connector *conn = incidents->conn;
	struct lg_incident *incident = &incidents->pending;
	read_connector(conn, &incident->mode_after, &incident->link_after);
	incident->outcome = outcome(conn, incidents);
	if (incident->outcome == LG_INCIDENT_GONE) {
		// The output may outlive its sink for a moment: nothing runs.
		incident->mode_after = (struct lg_mode){0};
		incident->link_after = (struct lg_link_params){0};
	}
	uint64_t duration = lg_now_ms() - incidents->opened_ms;
	incident->duration_ms = duration > UINT32_MAX ? UINT32_MAX : (uint32_t)duration;
	incidents->open = false;
	incidents->last_reason = incident->reason;
	lg_history_push(&incidents->history, incident);

	char before[64], after[64], link_before[32], link_after[32], message[256];
	struct journal_incident entry = {
		.connector = conn->name,
		.monitor = connector_identity(conn),
		.outcome = incident->outcome,
		.reason = incident->reason,
		.mode_before = mode_format(&incident->mode_before, before, sizeof(before)),
		.mode_after = mode_format(&incident->mode_after, after, sizeof(after)),
		.link_before = link_format(&incident->link_before, link_before, sizeof(link_before)),
		.link_after = link_format(&incident->link_after, link_after, sizeof(link_after)),
		.duration_ms = incident->duration_ms,
		.message = message,
	};
	snprintf(message, sizeof(message), "incident: %s, %s -> %s, %s -> %s (%s), %" PRIu32 " ms",
		lg_incident_outcome_name(incident->outcome),
		or_unknown(entry.mode_before, "no mode"), or_unknown(entry.mode_after, "no mode"),
		or_unknown(entry.link_before, "link unknown"), or_unknown(entry.link_after, "link unknown"),
		lg_incident_reason_name(incident->reason), incident->duration_ms);
	lg_conn_log(conn, LG_INFO, "%s", message);
	journal_send_incident(&entry);
	wl_signal_emit_mutable(&conn->manager->events.incident, incident);
}

void incident_rest(struct lg_incidents *incidents) {
	if (incidents->open && at_rest(incidents)) {
		record(incidents);
	}
}
