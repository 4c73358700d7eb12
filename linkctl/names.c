/*
 * The names linkctl prints for the protocol's values, in every format: the
 * words of linkctl(1) and of its JSON schema.
 */
#include <stddef.h>
#include "linkguard-link-v1-client-protocol.h"
#include "linkctl.h"

static const char *const state_names[] = {
	"good", "bad", "retraining", "degraded", "failed", "flapping",
};
static const char *const reason_names[] = {
	"mode-pruned", "test-failed", "known-bad", "flapping", "sink-unlocked",
	"link-errors",
};

#define COUNT(array) (sizeof(array) / sizeof((array)[0]))

static const char *name_of(const char *const *names, size_t n, uint32_t value) {
	return value < n ? names[value] : "unknown";
}

const char *state_name(uint32_t state) {
	return name_of(state_names, COUNT(state_names), state);
}

const char *reason_name(uint32_t reason) {
	return name_of(reason_names, COUNT(reason_names), reason);
}

const char *setting_source_name(uint32_t source) {
	static const char *const names[] = { "default", "file", "env", "option" };
	return name_of(names, COUNT(names), source);
}

const char *link_status_name(uint32_t status) {
	return status == ZLG_LINK_CONNECTOR_V1_LINK_STATUS_BAD ? "bad" : "good";
}

static const char *const incident_reasons[] = {
	"mode-pruned", "test-failed", "known-bad", "flapping", "link-bad",
	"no-modes", "all-rejected", "probe-failed", "retry", "sink-unlocked",
	"link-errors",
};
static const char *const incident_outcomes[] = {
	"retrained", "restored", "degraded", "held", "failed", "gone", "step-up",
};

const char *incident_reason_name(uint32_t reason) {
	return name_of(incident_reasons, COUNT(incident_reasons), reason);
}

const char *incident_outcome_name(uint32_t outcome) {
	return name_of(incident_outcomes, COUNT(incident_outcomes), outcome);
}

const char *change_name(enum change change) {
	switch (change) {
	case CHANGE_DESCRIPTION:
		return "description";
	case CHANGE_CONNECTION:
		return "connection";
	case CHANGE_LINK_STATUS:
		return "link_status";
	case CHANGE_STATE:
		return "state";
	case CHANGE_REQUESTED:
		return "requested_mode";
	case CHANGE_CURRENT:
		return "current_mode";
	case CHANGE_MODES:
		return "allowed_modes";
	case CHANGE_LINK:
		return "link";
	case CHANGE_FALLBACK:
		return "fallback";
	case CHANGE_SKIPPED:
		return "skipped_modes";
	case CHANGE_ADDED:
		return "added";
	case CHANGE_REMOVED:
		return "removed";
	case CHANGE_INCIDENT:
		return "incident";
	case CHANGE_SETTINGS:
		return "settings";
	case CHANGE_SINK:
		return "sink";
	}
	return "unknown";
}

