#include <linkguard/link.h>
#include <linkguard/policy.h>

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
