#include <core/state.h>

static enum lg_link_state running_state(bool at_requested) {
	return at_requested ? LG_LINK_GOOD : LG_LINK_DEGRADED;
}

/*
 * The kernel sets link-status BAD after training failed and it lowered the
 * link (drm_connector.c, "link-status"); user space answers with a modeset.
 * A BAD while a previous recovery is still settling is the same incident
 * going down the kernel's fallback ladder (a cascade), not a new flap.
 */
enum lg_link_state lg_link_state_next(enum lg_link_state state,
		enum lg_link_event event, bool at_requested) {
	switch (event) {
	case LG_EVENT_LINK_BAD:
		// Held: the hold timer decides when to look again.
		return state == LG_LINK_FLAPPING ? LG_LINK_FLAPPING : LG_LINK_BAD;
	case LG_EVENT_FLAP:
		return LG_LINK_FLAPPING;
	case LG_EVENT_RECOVERY_COMMITTED:
		return state == LG_LINK_FLAPPING ? LG_LINK_FLAPPING : LG_LINK_RETRAINING;
	case LG_EVENT_NO_MODE:
		return LG_LINK_FAILED;
	case LG_EVENT_SETTLED:
		if (state != LG_LINK_RETRAINING) {
			return state;
		}
		return running_state(at_requested);
	case LG_EVENT_HOLD_EXPIRED:
		if (state != LG_LINK_FLAPPING) {
			return state;
		}
		return running_state(at_requested);
	case LG_EVENT_MODE_SET:
		// A compositor's modeset trains the link afresh.
		if (state == LG_LINK_FLAPPING) {
			return state;
		}
		return running_state(at_requested);
	case LG_EVENT_DISABLED:
	case LG_EVENT_DISCONNECTED:
		// FAILED stays, so that a replug that works is reported restored.
		return state == LG_LINK_FAILED ? state : LG_LINK_GOOD;
	}
	return state;
}

void lg_flap_reset(struct lg_flap_history *history) {
	history->len = 0;
	history->head = 0;
}

bool lg_flap_record(struct lg_flap_history *history, uint64_t now_ms,
		uint32_t count, uint32_t window_ms) {
	const uint32_t cap = sizeof(history->bad_ms) / sizeof(history->bad_ms[0]);
	if (count == 0) {
		return false;
	}
	if (count > cap) {
		count = cap;
	}
	history->bad_ms[history->head] = now_ms;
	history->head = (history->head + 1) % cap;
	if (history->len < cap) {
		history->len++;
	}
	if (history->len < count) {
		return false;
	}
	// The count-th most recent BAD, counting this one as the first.
	uint32_t oldest = (history->head + cap - count) % cap;
	return now_ms - history->bad_ms[oldest] <= window_ms;
}
