/*
 * The JSON format, written with json-c (which escapes strings; linkctl
 * hands it UTF-8 only, see connection.c).
 *
 * `linkctl --json` (schema version 1; fields are only ever added):
 *
 *   { "version": 1, "connectors": [ CONNECTOR... ] }
 *   CONNECTOR = { "name": "DP-1", "description": STRING|null,
 *     "connected": BOOL, "link_status": "good"|"bad",
 *     "state": "good"|"bad"|"retraining"|"degraded"|"failed"|"flapping",
 *     "requested_mode": MODE|null, "current_mode": MODE|null,
 *     "allowed_modes": [ MODE... ], "link": LINK|null,
 *     "last_fallback": FALLBACK|null,
 *     "skipped_modes": [ SKIPPED... ]|null,   (null: the compositor
 *     speaks version 1 of the protocol and does not say)
 *     "settings": [ SETTING... ]|null,   (null: before version 3)
 *     "sink": SINK|null }   (null: before version 3)
 *   SETTING = { "key": "min-refresh", "value": "120",
 *     "source": "default"|"file"|"env"|"option",
 *     "origin": "/home/u/.config/linkguard/config:3"|"LINKGUARD_..."|null }
 *   MODE = { "width": INT, "height": INT, "refresh_mhz": INT,
 *     "preferred": BOOL }   ("preferred" in allowed_modes only)
 *   LINK = { "lanes": INT, "rate_mbps": INT }
 *   FALLBACK = { "reason": "mode-pruned"|"test-failed"|"known-bad"|"flapping",
 *     "from": MODE, "to": MODE, "time": SECONDS (CLOCK_MONOTONIC) }
 *   SKIPPED = { "width": INT, "height": INT, "refresh_mhz": INT,
 *     "last_failed": SECONDS since the epoch|null, "requested": BOOL }
 *   SINK = { "readable": BOOL, "decoded": BOOL (false: a 128b/132b link),
 *     "lanes_locked": [ BOOL per trained lane ], "aligned": BOOL,
 *     "in_sync": BOOL, "error_rates": [ INT|null per trained lane ]|null
 *     (symbol errors a minute; null before a minute was counted, null for
 *     a lane whose counter is not valid), "link_errors": BOOL }
 *
 * `linkctl watch --json` prints one JSON object per line:
 *   { "time": SECONDS, "connector": NAME, "event": EVENT, ... }
 * EVENT "added" carries "state": CONNECTOR; "removed" nothing more;
 * "connection" "value": BOOL; "link_status" and "state" "value": STRING;
 * "requested_mode" and "current_mode" "value": MODE|null; "allowed_modes"
 * "value": [MODE...]; "link" "value": LINK|null; "description" "value":
 * STRING; "fallback" "value": FALLBACK; "skipped_modes" "value":
 * [SKIPPED...]; "incident" "value": INCIDENT, "settings" "value":
 * [SETTING...] and "sink" "value": SINK (version 3). "time" is
 * CLOCK_MONOTONIC seconds when the batch's done arrived; events of one
 * batch share it.
 *
 * `linkctl history [NAME] --json` (schema version 1; fields are only ever
 * added), incidents oldest first:
 *
 *   { "version": 1, "connectors": [ { "name": "DP-1",
 *       "incidents": [ INCIDENT... ] }... ] }
 *   INCIDENT = { "time": SECONDS since the epoch, when it began,
 *     "outcome": "retrained"|"restored"|"degraded"|"held"|"failed"|"gone"|
 *       "step-up",   ("step-up": a better mode than before, not yet the
 *       requested one, the reason says why; a compositor older than
 *       protocol version 4 says "degraded")
 *     "reason": "mode-pruned"|"test-failed"|"known-bad"|"flapping"|
 *       "link-bad"|"no-modes"|"all-rejected"|"probe-failed"|"retry"|
 *       "sink-unlocked"|"link-errors",
 *     "mode_before": MODE|null, "mode_after": MODE|null,
 *     "link_before": LINK|null, "link_after": LINK|null,
 *     "duration_ms": INT }
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <json-c/json.h>
#include "linkguard-link-v1-client-protocol.h"
#include "linkctl.h"

/* Plain JSON: no "\/" for "/" (json-c's default), spaces after separators. */
#define JSON_FLAGS (JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE)

/*
 * A number printed as text says (json-c prints doubles with 17 digits):
 * times keep the precision the protocol gave them.
 */
static struct json_object *decimal(double value, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static struct json_object *decimal(double value, const char *fmt, ...) {
	char text[64];
	va_list args;
	va_start(args, fmt);
	vsnprintf(text, sizeof(text), fmt, args);
	va_end(args);
	return json_object_new_double_s(value, text);
}

static struct json_object *mode_json(const struct mode *mode, bool with_preferred) {
	if (mode_is_none(mode)) {
		return NULL;
	}
	struct json_object *obj = json_object_new_object();
	json_object_object_add(obj, "width", json_object_new_int(mode->width));
	json_object_object_add(obj, "height", json_object_new_int(mode->height));
	json_object_object_add(obj, "refresh_mhz",
		json_object_new_int(mode->refresh_mhz));
	if (with_preferred) {
		json_object_object_add(obj, "preferred", json_object_new_boolean(
			mode->flags & ZLG_LINK_CONNECTOR_V1_MODE_FLAGS_PREFERRED));
	}
	return obj;
}

static struct json_object *modes_json(const struct link_state *state) {
	struct json_object *array = json_object_new_array();
	for (size_t i = 0; i < state->n_modes; i++) {
		json_object_array_add(array, mode_json(&state->modes[i], true));
	}
	return array;
}

static struct json_object *link_json(uint32_t lanes, uint32_t rate_mbps) {
	if (lanes == 0) {
		return NULL;
	}
	struct json_object *obj = json_object_new_object();
	json_object_object_add(obj, "lanes", json_object_new_int64(lanes));
	json_object_object_add(obj, "rate_mbps", json_object_new_int64(rate_mbps));
	return obj;
}

static struct json_object *fallback_json(const struct link_state *state) {
	if (!state->has_fallback) {
		return NULL;
	}
	const struct fallback *fallback = &state->fallback;
	struct json_object *obj = json_object_new_object();
	json_object_object_add(obj, "reason",
		json_object_new_string(reason_name(fallback->reason)));
	json_object_object_add(obj, "from", mode_json(&fallback->from, false));
	json_object_object_add(obj, "to", mode_json(&fallback->to, false));
	json_object_object_add(obj, "time", decimal(
		(double)fallback->sec + fallback->nsec / 1e9,
		"%" PRIu64 ".%09" PRIu32, fallback->sec, fallback->nsec));
	return obj;
}

static struct json_object *skipped_json(const struct link_state *state) {
	if (!state->has_skipped) {
		return NULL;
	}
	struct json_object *array = json_object_new_array();
	for (size_t i = 0; i < state->n_skipped; i++) {
		const struct skipped_mode *skipped = &state->skipped[i];
		struct json_object *obj = mode_json(&skipped->mode, false);
		if (obj == NULL) {
			obj = json_object_new_object();
		}
		json_object_object_add(obj, "last_failed", skipped->last_failed > 0 ?
			json_object_new_uint64(skipped->last_failed) : NULL);
		json_object_object_add(obj, "requested", json_object_new_boolean(
			mode_is_requested(state, &skipped->mode)));
		json_object_array_add(array, obj);
	}
	return array;
}

static struct json_object *incident_json(const struct incident *incident) {
	struct json_object *obj = json_object_new_object();
	json_object_object_add(obj, "time", decimal(
		(double)incident->sec + incident->nsec / 1e9,
		"%" PRIu64 ".%09" PRIu32, incident->sec, incident->nsec));
	json_object_object_add(obj, "outcome",
		json_object_new_string(incident_outcome_name(incident->outcome)));
	json_object_object_add(obj, "reason",
		json_object_new_string(incident_reason_name(incident->reason)));
	json_object_object_add(obj, "mode_before", mode_json(&incident->from, false));
	json_object_object_add(obj, "mode_after", mode_json(&incident->to, false));
	json_object_object_add(obj, "link_before",
		link_json(incident->from_lanes, incident->from_rate_mbps));
	json_object_object_add(obj, "link_after",
		link_json(incident->to_lanes, incident->to_rate_mbps));
	json_object_object_add(obj, "duration_ms",
		json_object_new_int64(incident->duration_ms));
	return obj;
}

static struct json_object *sink_json(const struct link_state *state) {
	if (!state->has_sink) {
		return NULL;
	}
	const struct sink *sink = &state->sink;
	struct json_object *obj = json_object_new_object();
	bool readable = sink->flags & ZLG_LINK_CONNECTOR_V1_SINK_FLAGS_READABLE;
	json_object_object_add(obj, "readable", json_object_new_boolean(readable));
	json_object_object_add(obj, "decoded", json_object_new_boolean(readable &&
		!(sink->flags & ZLG_LINK_CONNECTOR_V1_SINK_FLAGS_NOT_DECODED)));
	struct json_object *locked = json_object_new_array();
	for (uint32_t lane = 0; readable && lane < state->lanes && lane < 4; lane++) {
		json_object_array_add(locked,
			json_object_new_boolean((sink->lanes_locked >> lane) & 1));
	}
	json_object_object_add(obj, "lanes_locked", locked);
	json_object_object_add(obj, "aligned", json_object_new_boolean(
		sink->flags & ZLG_LINK_CONNECTOR_V1_SINK_FLAGS_ALIGNED));
	json_object_object_add(obj, "in_sync", json_object_new_boolean(
		sink->flags & ZLG_LINK_CONNECTOR_V1_SINK_FLAGS_IN_SYNC));
	struct json_object *rates = NULL;
	if (sink->n_rates > 0) {
		rates = json_object_new_array();
		for (size_t lane = 0; lane < sink->n_rates; lane++) {
			json_object_array_add(rates, sink->rates[lane] == UINT32_MAX ?
				NULL : json_object_new_int64(sink->rates[lane]));
		}
	}
	json_object_object_add(obj, "error_rates", rates);
	json_object_object_add(obj, "link_errors", json_object_new_boolean(
		sink->flags & ZLG_LINK_CONNECTOR_V1_SINK_FLAGS_LINK_ERRORS));
	return obj;
}

static struct json_object *string_or_null(const char *s) {
	return s != NULL ? json_object_new_string(s) : NULL;
}

static struct json_object *settings_json(const struct connector *conn) {
	if (conn->n_settings == 0) {
		return NULL;
	}
	struct json_object *array = json_object_new_array();
	for (size_t i = 0; i < conn->n_settings; i++) {
		const struct setting *setting = &conn->settings[i];
		struct json_object *obj = json_object_new_object();
		json_object_object_add(obj, "key", string_or_null(setting->key));
		json_object_object_add(obj, "value", string_or_null(setting->value));
		json_object_object_add(obj, "source",
			json_object_new_string(setting_source_name(setting->source)));
		json_object_object_add(obj, "origin", string_or_null(setting->origin));
		json_object_array_add(array, obj);
	}
	return array;
}

static struct json_object *connector_json(const struct connector *conn) {
	const struct link_state *state = &conn->current;
	struct json_object *obj = json_object_new_object();
	json_object_object_add(obj, "name", string_or_null(conn->name));
	json_object_object_add(obj, "description",
		string_or_null(state->description));
	json_object_object_add(obj, "connected",
		json_object_new_boolean(state->connected));
	json_object_object_add(obj, "link_status",
		json_object_new_string(link_status_name(state->link_status)));
	json_object_object_add(obj, "state",
		json_object_new_string(state_name(state->state)));
	json_object_object_add(obj, "requested_mode",
		mode_json(&state->requested, false));
	json_object_object_add(obj, "current_mode", mode_json(&state->current, false));
	json_object_object_add(obj, "allowed_modes", modes_json(state));
	json_object_object_add(obj, "link", link_json(state->lanes, state->rate_mbps));
	json_object_object_add(obj, "last_fallback", fallback_json(state));
	json_object_object_add(obj, "skipped_modes", skipped_json(state));
	json_object_object_add(obj, "settings", settings_json(conn));
	json_object_object_add(obj, "sink", sink_json(state));
	return obj;
}

/* Prints obj and a newline, then frees it; false when json-c could not. */
static bool print_json(struct json_object *obj, int flags) {
	const char *text = obj != NULL ?
		json_object_to_json_string_ext(obj, flags) : NULL;
	if (text != NULL) {
		printf("%s\n", text);
	}
	json_object_put(obj);
	return text != NULL;
}

bool json_print_list(const struct linkctl *ctl) {
	struct json_object *doc = json_object_new_object();
	struct json_object *connectors = json_object_new_array();
	for (struct connector *c = ctl->connectors; c != NULL; c = c->next) {
		json_object_array_add(connectors, connector_json(c));
	}
	json_object_object_add(doc, "version", json_object_new_int(1));
	json_object_object_add(doc, "connectors", connectors);
	return print_json(doc, JSON_FLAGS | JSON_C_TO_STRING_PRETTY);
}

bool json_print_history(const struct linkctl *ctl, const struct connector *only) {
	struct json_object *doc = json_object_new_object();
	struct json_object *connectors = json_object_new_array();
	for (struct connector *c = ctl->connectors; c != NULL; c = c->next) {
		if (only != NULL && c != only) {
			continue;
		}
		struct json_object *obj = json_object_new_object();
		struct json_object *incidents = json_object_new_array();
		for (size_t i = 0; i < c->current.n_incidents; i++) {
			json_object_array_add(incidents,
				incident_json(&c->current.incidents[i]));
		}
		json_object_object_add(obj, "name", string_or_null(c->name));
		json_object_object_add(obj, "incidents", incidents);
		json_object_array_add(connectors, obj);
	}
	json_object_object_add(doc, "version", json_object_new_int(1));
	json_object_object_add(doc, "connectors", connectors);
	return print_json(doc, JSON_FLAGS | JSON_C_TO_STRING_PRETTY);
}

/* A change's "value", or NULL (JSON null). */
static struct json_object *change_value(const struct connector *conn,
		enum change change) {
	const struct link_state *state = &conn->current;
	switch (change) {
	case CHANGE_DESCRIPTION:
		return string_or_null(state->description);
	case CHANGE_CONNECTION:
		return json_object_new_boolean(state->connected);
	case CHANGE_LINK_STATUS:
		return json_object_new_string(link_status_name(state->link_status));
	case CHANGE_STATE:
		return json_object_new_string(state_name(state->state));
	case CHANGE_REQUESTED:
		return mode_json(&state->requested, false);
	case CHANGE_CURRENT:
		return mode_json(&state->current, false);
	case CHANGE_MODES:
		return modes_json(state);
	case CHANGE_LINK:
		return link_json(state->lanes, state->rate_mbps);
	case CHANGE_FALLBACK:
		return fallback_json(state);
	case CHANGE_SKIPPED:
		return skipped_json(state);
	case CHANGE_INCIDENT:
		return incident_json(&state->incidents[state->n_incidents - 1]);
	case CHANGE_SETTINGS:
		return settings_json(conn);
	case CHANGE_SINK:
		return sink_json(state);
	case CHANGE_ADDED:
	case CHANGE_REMOVED:
		break;
	}
	return NULL;
}

bool json_print_change(double now, const struct connector *conn,
		enum change change) {
	struct json_object *obj = json_object_new_object();
	json_object_object_add(obj, "time", decimal(now, "%.6f", now));
	json_object_object_add(obj, "connector", string_or_null(conn->name));
	json_object_object_add(obj, "event",
		json_object_new_string(change_name(change)));
	if (change == CHANGE_ADDED) {
		json_object_object_add(obj, "state", connector_json(conn));
	} else if (change != CHANGE_REMOVED) {
		json_object_object_add(obj, "value", change_value(conn, change));
	}
	return print_json(obj, JSON_FLAGS);
}
