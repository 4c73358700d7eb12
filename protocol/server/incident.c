/*
 * Version 3: each connector's incident history, sent whole in the initial
 * batch and then one incident at a time as they happen; version 4 adds the
 * step_up outcome. Versions 1 and 2
 * are sent nothing of it, and no batch of theirs is split or merged for it:
 * an incident goes out in a batch of its own, to version 3 resources only.
 */
#include "linkguard-link-v1-protocol.h"
#include <core/history.h>
#include <core/recovery.h>
#include <protocol/server.h>

// The protocol's enums carry the core's values unchanged.
_Static_assert(
	ZLG_LINK_CONNECTOR_V1_INCIDENT_REASON_MODE_PRUNED == (int)LG_INCIDENT_MODE_PRUNED &&
	ZLG_LINK_CONNECTOR_V1_INCIDENT_REASON_TEST_FAILED == (int)LG_INCIDENT_TEST_FAILED &&
	ZLG_LINK_CONNECTOR_V1_INCIDENT_REASON_KNOWN_BAD == (int)LG_INCIDENT_KNOWN_BAD &&
	ZLG_LINK_CONNECTOR_V1_INCIDENT_REASON_FLAPPING == (int)LG_INCIDENT_FLAPPING &&
	ZLG_LINK_CONNECTOR_V1_INCIDENT_REASON_LINK_BAD == (int)LG_INCIDENT_LINK_BAD &&
	ZLG_LINK_CONNECTOR_V1_INCIDENT_REASON_NO_MODES == (int)LG_INCIDENT_NO_MODES &&
	ZLG_LINK_CONNECTOR_V1_INCIDENT_REASON_ALL_REJECTED == (int)LG_INCIDENT_ALL_REJECTED &&
	ZLG_LINK_CONNECTOR_V1_INCIDENT_REASON_PROBE_FAILED == (int)LG_INCIDENT_PROBE_FAILED &&
	ZLG_LINK_CONNECTOR_V1_INCIDENT_REASON_RETRY == (int)LG_INCIDENT_RETRY &&
	ZLG_LINK_CONNECTOR_V1_INCIDENT_REASON_SINK_UNLOCKED ==
		(int)LG_INCIDENT_SINK_UNLOCKED &&
	ZLG_LINK_CONNECTOR_V1_INCIDENT_REASON_LINK_ERRORS == (int)LG_INCIDENT_LINK_ERRORS,
	"incident reason enums differ");
_Static_assert(
	ZLG_LINK_CONNECTOR_V1_INCIDENT_OUTCOME_RETRAINED == (int)LG_INCIDENT_RETRAINED &&
	ZLG_LINK_CONNECTOR_V1_INCIDENT_OUTCOME_RESTORED == (int)LG_INCIDENT_RESTORED &&
	ZLG_LINK_CONNECTOR_V1_INCIDENT_OUTCOME_DEGRADED == (int)LG_INCIDENT_DEGRADED &&
	ZLG_LINK_CONNECTOR_V1_INCIDENT_OUTCOME_HELD == (int)LG_INCIDENT_HELD &&
	ZLG_LINK_CONNECTOR_V1_INCIDENT_OUTCOME_FAILED == (int)LG_INCIDENT_FAILED &&
	ZLG_LINK_CONNECTOR_V1_INCIDENT_OUTCOME_GONE == (int)LG_INCIDENT_GONE &&
	ZLG_LINK_CONNECTOR_V1_INCIDENT_OUTCOME_STEP_UP == (int)LG_INCIDENT_STEP_UP,
	"incident outcome enums differ");

static bool tells_incidents(struct wl_resource *resource) {
	return wl_resource_get_version(resource) >=
		ZLG_LINK_CONNECTOR_V1_INCIDENT_SINCE_VERSION;
}

/*
 * A step up reaches clients older than version 4 as what it meant there: a
 * mode other than the requested one runs and holds.
 */
static uint32_t outcome_for(struct wl_resource *resource,
		enum lg_incident_outcome outcome) {
	if (outcome == LG_INCIDENT_STEP_UP && wl_resource_get_version(resource) <
			ZLG_LINK_CONNECTOR_V1_INCIDENT_OUTCOME_STEP_UP_SINCE_VERSION) {
		return ZLG_LINK_CONNECTOR_V1_INCIDENT_OUTCOME_DEGRADED;
	}
	return outcome;
}

static void send_incident(struct wl_resource *resource,
		const struct lg_incident *incident) {
	uint64_t sec = (uint64_t)incident->when.tv_sec;
	zlg_link_connector_v1_send_incident(resource, incident->reason,
		outcome_for(resource, incident->outcome), incident->mode_before.width,
		incident->mode_before.height, incident->mode_before.refresh_mhz,
		incident->mode_after.width, incident->mode_after.height,
		incident->mode_after.refresh_mhz, incident->link_before.lanes,
		incident->link_before.rate_mbps, incident->link_after.lanes,
		incident->link_after.rate_mbps, (uint32_t)(sec >> 32), (uint32_t)sec,
		(uint32_t)incident->when.tv_nsec, incident->duration_ms);
}

void link_incidents_send_history(struct wl_resource *resource,
		const struct lg_connector *conn) {
	if (!tells_incidents(resource)) {
		return;
	}
	zlg_link_connector_v1_send_incidents_reset(resource);
	const struct lg_history *history = connector_history(conn);
	for (size_t i = 0; i < lg_history_len(history); i++) {
		send_incident(resource, lg_history_at(history, i));
	}
}

void link_connector_send_incident(struct link_connector *connector,
		const struct lg_incident *incident) {
	struct connector_resource *cr;
	wl_list_for_each(cr, &connector->resources, link) {
		if (tells_incidents(cr->resource)) {
			send_incident(cr->resource, incident);
			zlg_link_manager_v1_send_done(cr->manager->resource);
		}
	}
}
