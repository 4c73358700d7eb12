#include <stdlib.h>
#include <string.h>
#include "linkguard-link-v1-protocol.h"
#include <core/known_bad.h>
#include <protocol/server.h>

// The protocol's enums carry the core's values unchanged.
_Static_assert(ZLG_LINK_CONNECTOR_V1_STATE_GOOD == (int)LG_LINK_GOOD &&
	ZLG_LINK_CONNECTOR_V1_STATE_BAD == (int)LG_LINK_BAD &&
	ZLG_LINK_CONNECTOR_V1_STATE_RETRAINING == (int)LG_LINK_RETRAINING &&
	ZLG_LINK_CONNECTOR_V1_STATE_DEGRADED == (int)LG_LINK_DEGRADED &&
	ZLG_LINK_CONNECTOR_V1_STATE_FAILED == (int)LG_LINK_FAILED &&
	ZLG_LINK_CONNECTOR_V1_STATE_FLAPPING == (int)LG_LINK_FLAPPING,
	"state enums differ");
_Static_assert(
	ZLG_LINK_CONNECTOR_V1_FALLBACK_REASON_MODE_PRUNED == (int)LG_FALLBACK_MODE_PRUNED &&
	ZLG_LINK_CONNECTOR_V1_FALLBACK_REASON_TEST_FAILED == (int)LG_FALLBACK_TEST_FAILED &&
	ZLG_LINK_CONNECTOR_V1_FALLBACK_REASON_KNOWN_BAD == (int)LG_FALLBACK_KNOWN_BAD &&
	ZLG_LINK_CONNECTOR_V1_FALLBACK_REASON_FLAPPING == (int)LG_FALLBACK_FLAPPING &&
	ZLG_LINK_CONNECTOR_V1_FALLBACK_REASON_SINK_UNLOCKED ==
		(int)LG_FALLBACK_SINK_UNLOCKED &&
	ZLG_LINK_CONNECTOR_V1_FALLBACK_REASON_LINK_ERRORS == (int)LG_FALLBACK_LINK_ERRORS,
	"fallback reason enums differ");

/*
 * What a connector's resources were last told, and the events that bring a
 * client from that to the connector's state now. One snapshot per
 * connector serves all its resources: each was sent the full state when it
 * was created, and every change since.
 */

void link_snapshot_finish(struct link_snapshot *snapshot) {
	free(snapshot->description);
	snapshot->description = NULL;
	lg_mode_list_finish(&snapshot->modes);
	free(snapshot->skipped);
	snapshot->skipped = NULL;
	snapshot->n_skipped = 0;
	link_settings_finish(snapshot);
}

static bool modes_equal(const struct lg_mode_list *a, const struct lg_mode_list *b) {
	if (a->len != b->len) {
		return false;
	}
	for (size_t i = 0; i < a->len; i++) {
		if (!lg_mode_same_timing(&a->modes[i], &b->modes[i]) ||
				a->modes[i].preferred != b->modes[i].preferred ||
				a->modes[i].interlaced != b->modes[i].interlaced) {
			return false;
		}
	}
	return true;
}

static bool skipped_changed(const struct link_snapshot *snapshot,
		const struct lg_connector *conn) {
	if (snapshot->n_skipped != conn->known_bad.len) {
		return true;
	}
	for (size_t i = 0; i < snapshot->n_skipped; i++) {
		const struct lg_mode *mode = &conn->known_bad.modes[i];
		if (!lg_mode_same_timing(&snapshot->skipped[i].mode, mode) ||
				snapshot->skipped[i].last_failed !=
				known_bad_last_failed(conn, mode)) {
			return true;
		}
	}
	return false;
}

static bool mode_changed(bool had, const struct lg_mode *old, bool has,
		const struct lg_mode *mode) {
	if (had != has) {
		return true;
	}
	return has && !lg_mode_same_timing(old, mode);
}

static bool params_changed(const struct link_snapshot *snapshot,
		const struct lg_connector *conn) {
	if (snapshot->has_link_params != conn->has_link_params) {
		return true;
	}
	return conn->has_link_params &&
		(snapshot->link_params.lanes != conn->link_params.lanes ||
		snapshot->link_params.rate_mbps != conn->link_params.rate_mbps);
}

static void send_mode_list(struct wl_resource *resource,
		const struct lg_mode_list *modes) {
	zlg_link_connector_v1_send_allowed_modes_reset(resource);
	for (size_t i = 0; i < modes->len; i++) {
		const struct lg_mode *mode = &modes->modes[i];
		uint32_t flags = 0;
		if (mode->preferred) {
			flags |= ZLG_LINK_CONNECTOR_V1_MODE_FLAGS_PREFERRED;
		}
		if (mode->interlaced) {
			flags |= ZLG_LINK_CONNECTOR_V1_MODE_FLAGS_INTERLACED;
		}
		zlg_link_connector_v1_send_allowed_mode(resource, mode->width,
			mode->height, mode->refresh_mhz, flags);
	}
}

static void send_skipped_modes(struct wl_resource *resource,
		const struct lg_connector *conn) {
	zlg_link_connector_v1_send_skipped_modes_reset(resource);
	for (size_t i = 0; i < conn->known_bad.len; i++) {
		const struct lg_mode *mode = &conn->known_bad.modes[i];
		uint64_t last = (uint64_t)known_bad_last_failed(conn, mode);
		zlg_link_connector_v1_send_skipped_mode(resource, mode->width,
			mode->height, mode->refresh_mhz, (uint32_t)(last >> 32),
			(uint32_t)last);
	}
}

static void send_mode(struct wl_resource *resource, bool current, bool has,
		const struct lg_mode *mode) {
	static const struct lg_mode none = {0};
	if (!has) {
		mode = &none;
	}
	if (current) {
		zlg_link_connector_v1_send_current_mode(resource, mode->width,
			mode->height, mode->refresh_mhz);
	} else {
		zlg_link_connector_v1_send_requested_mode(resource, mode->width,
			mode->height, mode->refresh_mhz);
	}
}

/* The sink_status event's arguments for conn. */
static void sink_of(const struct lg_connector *conn, struct link_sink *sink) {
	*sink = (struct link_sink){0};
	if (!conn->has_sink_status) {
		return;
	}
	const struct lg_sink_status *status = &conn->sink_status;
	sink->flags = ZLG_LINK_CONNECTOR_V1_SINK_FLAGS_READABLE;
	if (status->aligned) {
		sink->flags |= ZLG_LINK_CONNECTOR_V1_SINK_FLAGS_ALIGNED;
	}
	if (status->in_sync) {
		sink->flags |= ZLG_LINK_CONNECTOR_V1_SINK_FLAGS_IN_SYNC;
	}
	if (status->uhbr) {
		sink->flags |= ZLG_LINK_CONNECTOR_V1_SINK_FLAGS_NOT_DECODED;
	}
	if (conn->link_errors) {
		sink->flags |= ZLG_LINK_CONNECTOR_V1_SINK_FLAGS_LINK_ERRORS;
	}
	sink->lanes_locked = status->lanes_locked;
	if (!conn->has_error_rates || status->uhbr) {
		return;
	}
	for (uint32_t lane = 0; lane < status->link.lanes && lane < 4; lane++) {
		sink->rates[sink->n_rates++] = status->errors_valid & (1u << lane) ?
			conn->error_rates[lane] : UINT32_MAX;
	}
}

static bool sink_equal(const struct link_sink *a, const struct link_sink *b) {
	return a->flags == b->flags && a->lanes_locked == b->lanes_locked &&
		a->n_rates == b->n_rates &&
		memcmp(a->rates, b->rates, a->n_rates * sizeof(a->rates[0])) == 0;
}

static void send_sink(struct wl_resource *resource, const struct link_sink *sink) {
	struct wl_array rates = {
		.size = sink->n_rates * sizeof(sink->rates[0]),
		.alloc = 0,
		.data = (void *)sink->rates,
	};
	zlg_link_connector_v1_send_sink_status(resource, sink->flags,
		sink->lanes_locked, &rates);
}

bool link_snapshot_send(const struct link_snapshot *snapshot,
		const struct lg_connector *conn, struct wl_resource *resource, bool full) {
	bool sent = false;
	if (conn->description != NULL && (full || snapshot->description == NULL ||
			strcmp(snapshot->description, conn->description) != 0)) {
		zlg_link_connector_v1_send_description(resource, conn->description);
		sent = true;
	}
	if (full || snapshot->connected != conn->connected) {
		zlg_link_connector_v1_send_connection(resource, conn->connected ?
			ZLG_LINK_CONNECTOR_V1_CONNECTION_CONNECTED :
			ZLG_LINK_CONNECTOR_V1_CONNECTION_DISCONNECTED);
		sent = true;
	}
	if (full || snapshot->link_status != conn->link_status) {
		zlg_link_connector_v1_send_link_status(resource,
			conn->link_status == LG_LINK_STATUS_BAD ?
			ZLG_LINK_CONNECTOR_V1_LINK_STATUS_BAD :
			ZLG_LINK_CONNECTOR_V1_LINK_STATUS_GOOD);
		sent = true;
	}
	if (full || snapshot->state != conn->state) {
		// lg_link_state and the protocol's state enum share their values.
		zlg_link_connector_v1_send_state(resource, conn->state);
		sent = true;
	}
	if (full || mode_changed(snapshot->has_requested, &snapshot->requested,
			conn->has_requested, &conn->requested)) {
		send_mode(resource, false, conn->has_requested, &conn->requested);
		sent = true;
	}
	if (full || mode_changed(snapshot->has_current, &snapshot->current,
			conn->has_current, &conn->current)) {
		send_mode(resource, true, conn->has_current, &conn->current);
		sent = true;
	}
	if (full || !modes_equal(&snapshot->modes, &conn->modes)) {
		send_mode_list(resource, &conn->modes);
		sent = true;
	}
	if (full || params_changed(snapshot, conn)) {
		zlg_link_connector_v1_send_link_params(resource,
			conn->has_link_params ? conn->link_params.lanes : 0,
			conn->has_link_params ? conn->link_params.rate_mbps : 0);
		sent = true;
	}
	// Version 1 clients see exactly what they saw before version 2.
	if (wl_resource_get_version(resource) >=
			ZLG_LINK_CONNECTOR_V1_SKIPPED_MODES_RESET_SINCE_VERSION &&
			(full || skipped_changed(snapshot, conn))) {
		send_skipped_modes(resource, conn);
		sent = true;
	}
	sent = link_settings_send(snapshot, conn, resource, full) || sent;
	// Version 2 clients, what they saw before version 3.
	struct link_sink sink;
	sink_of(conn, &sink);
	if (wl_resource_get_version(resource) >=
			ZLG_LINK_CONNECTOR_V1_SINK_STATUS_SINCE_VERSION &&
			(full || !sink_equal(&snapshot->sink, &sink))) {
		send_sink(resource, &sink);
		sent = true;
	}
	return sent;
}

/* Out of memory the old list stays, and differs: the next batch sends it again. */
static void update_skipped(struct link_snapshot *snapshot,
		const struct lg_connector *conn) {
	size_t n = conn->known_bad.len;
	struct link_skipped_mode *skipped = realloc(snapshot->skipped,
		(n > 0 ? n : 1) * sizeof(*skipped));
	if (skipped == NULL) {
		return;
	}
	for (size_t i = 0; i < n; i++) {
		const struct lg_mode *mode = &conn->known_bad.modes[i];
		skipped[i] = (struct link_skipped_mode){
			.mode = *mode,
			.last_failed = known_bad_last_failed(conn, mode),
		};
	}
	snapshot->skipped = skipped;
	snapshot->n_skipped = n;
}

void link_snapshot_update(struct link_snapshot *snapshot,
		const struct lg_connector *conn) {
	if (conn->description != NULL && (snapshot->description == NULL ||
			strcmp(snapshot->description, conn->description) != 0)) {
		char *copy = strdup(conn->description);
		if (copy != NULL) {
			free(snapshot->description);
			snapshot->description = copy;
		}
	}
	snapshot->connected = conn->connected;
	snapshot->link_status = conn->link_status;
	snapshot->state = conn->state;
	snapshot->has_requested = conn->has_requested;
	snapshot->requested = conn->requested;
	snapshot->has_current = conn->has_current;
	snapshot->current = conn->current;
	snapshot->has_link_params = conn->has_link_params;
	snapshot->link_params = conn->link_params;
	if (!modes_equal(&snapshot->modes, &conn->modes)) {
		lg_mode_list_clear(&snapshot->modes);
		lg_mode_list_copy(&snapshot->modes, &conn->modes);
	}
	if (skipped_changed(snapshot, conn)) {
		update_skipped(snapshot, conn);
	}
	link_settings_update(snapshot, conn);
	sink_of(conn, &snapshot->sink);
}
