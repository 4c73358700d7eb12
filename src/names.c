#include <linkguard/incident.h>
#include <linkguard/link.h>
#include <linkguard/policy.h>
#include <core/machine.h>
#include <core/names.h>

const char *lg_link_state_name(enum lg_link_state state) {
	switch (state) {
	case LG_LINK_GOOD:
		return "good";
	case LG_LINK_BAD:
		return "bad";
	case LG_LINK_RETRAINING:
		return "retraining";
	case LG_LINK_DEGRADED:
		return "degraded";
	case LG_LINK_FAILED:
		return "failed";
	case LG_LINK_FLAPPING:
		return "flapping";
	}
	return "unknown";
}

const char *lg_link_status_name(enum lg_link_status status) {
	return status == LG_LINK_STATUS_BAD ? "BAD" : "GOOD";
}

const char *lg_fallback_reason_name(enum lg_fallback_reason reason) {
	switch (reason) {
	case LG_FALLBACK_MODE_PRUNED:
		return "mode-pruned";
	case LG_FALLBACK_TEST_FAILED:
		return "test-failed";
	case LG_FALLBACK_KNOWN_BAD:
		return "known-bad";
	case LG_FALLBACK_FLAPPING:
		return "flapping";
	case LG_FALLBACK_SINK_UNLOCKED:
		return "sink-unlocked";
	case LG_FALLBACK_LINK_ERRORS:
		return "link-errors";
	}
	return "unknown";
}

const char *lg_incident_reason_name(enum lg_incident_reason reason) {
	switch (reason) {
	case LG_INCIDENT_MODE_PRUNED:
	case LG_INCIDENT_TEST_FAILED:
	case LG_INCIDENT_KNOWN_BAD:
	case LG_INCIDENT_FLAPPING:
		return lg_fallback_reason_name((enum lg_fallback_reason)reason);
	case LG_INCIDENT_LINK_BAD:
		return "link-bad";
	case LG_INCIDENT_NO_MODES:
		return "no-modes";
	case LG_INCIDENT_ALL_REJECTED:
		return "all-rejected";
	case LG_INCIDENT_PROBE_FAILED:
		return "probe-failed";
	case LG_INCIDENT_RETRY:
		return "retry";
	case LG_INCIDENT_SINK_UNLOCKED:
		return "sink-unlocked";
	case LG_INCIDENT_LINK_ERRORS:
		return "link-errors";
	}
	return "unknown";
}

const char *lg_incident_outcome_name(enum lg_incident_outcome outcome) {
	switch (outcome) {
	case LG_INCIDENT_RETRAINED:
		return "retrained";
	case LG_INCIDENT_RESTORED:
		return "restored";
	case LG_INCIDENT_DEGRADED:
		return "degraded";
	case LG_INCIDENT_HELD:
		return "held";
	case LG_INCIDENT_FAILED:
		return "failed";
	case LG_INCIDENT_GONE:
		return "gone";
	case LG_INCIDENT_STEP_UP:
		return "step-up";
	}
	return "unknown";
}

const char *lg_policy_name(enum lg_policy policy) {
	switch (policy) {
	case LG_POLICY_RESOLUTION_FIRST:
		return "resolution-first";
	case LG_POLICY_REFRESH_FIRST:
		return "refresh-first";
	}
	return "unknown";
}

const char *lg_failure_name(enum lg_failure failure) {
	switch (failure) {
	case LG_FAILURE_NO_MODES:
		return "the kernel lists no mode";
	case LG_FAILURE_ALL_REJECTED:
		return "no listed mode passed its test and commit";
	case LG_FAILURE_PROBE:
		return "the forced probe failed";
	case LG_FAILURE_NONE_LOWER:
		return "the sink lost lock and no mode at a lower link passed "
			"its test and commit";
	}
	return "unknown";
}

const char *lg_machine_event_name(enum lg_machine_event_type type) {
	static const char *const names[] = {
		[LG_MACHINE_LINK_BAD] = "bad",
		[LG_MACHINE_TESTED] = "tested",
		[LG_MACHINE_PROBED] = "probed",
		[LG_MACHINE_COMMITTED] = "committed",
		[LG_MACHINE_TIMER] = "timer",
		[LG_MACHINE_HOTPLUG] = "hotplug",
		[LG_MACHINE_PLUG] = "plug",
		[LG_MACHINE_UNPLUG] = "unplug",
		[LG_MACHINE_SINK_SWAP] = "swap",
		[LG_MACHINE_SESSION_AWAY] = "away",
		[LG_MACHINE_SESSION_BACK] = "back",
		[LG_MACHINE_RETRY] = "retry",
		[LG_MACHINE_RECOMMEND] = "recommend",
		[LG_MACHINE_OUTPUT_NEW] = "output-new",
		[LG_MACHINE_OUTPUT_GONE] = "output-gone",
		[LG_MACHINE_OUTPUT_DISABLED] = "output-disabled",
		[LG_MACHINE_MODE_SET] = "mode-set",
		[LG_MACHINE_SINK_READ] = "sink-read",
	};
	return (size_t)type < sizeof(names) / sizeof(names[0]) ? names[type] : "unknown";
}
