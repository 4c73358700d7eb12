#ifndef CORE_STATE_H
#define CORE_STATE_H

#include <stdbool.h>
#include <stdint.h>
#include <linkguard/connector.h>

/* What happened to a connector's link, as the state machine sees it. */
enum lg_link_event {
	LG_EVENT_LINK_BAD, // link-status BAD read after a hotplug
	LG_EVENT_FLAP, // BAD once too often within the flap window
	LG_EVENT_RECOVERY_COMMITTED, // linkguard committed a mode after BAD
	LG_EVENT_NO_MODE, // no candidate passed its test; output disabled
	LG_EVENT_SETTLED, // the link held for settle_ms after a commit
	LG_EVENT_HOLD_EXPIRED, // the flap window passed without another BAD
	LG_EVENT_MODE_SET, // the compositor committed a mode of its own
	LG_EVENT_DISABLED, // the compositor disabled the output
	LG_EVENT_DISCONNECTED, // the sink was unplugged: the incident is over
};

/**
 * The connector link state machine: returns the state after event, given
 * whether the mode now running is the requested one. Pure; the caller
 * performs the side effects (commits, timers, signals).
 */
enum lg_link_state lg_link_state_next(enum lg_link_state state,
	enum lg_link_event event, bool at_requested);

/**
 * Records that a settled link went BAD at now_ms. Returns true when that
 * makes count BADs within window_ms: the link is flapping.
 */
bool lg_flap_record(struct lg_flap_history *history, uint64_t now_ms,
	uint32_t count, uint32_t window_ms);
void lg_flap_reset(struct lg_flap_history *history);

#endif
