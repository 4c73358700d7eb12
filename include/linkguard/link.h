#ifndef LINKGUARD_LINK_H
#define LINKGUARD_LINK_H

#include <stdint.h>

/** The connector's `link-status` property (DRM_MODE_LINK_STATUS_*). */
enum lg_link_status {
	LG_LINK_STATUS_GOOD = 0,
	LG_LINK_STATUS_BAD = 1,
};

/**
 * linkguard's view of one connector's link (linkguard-recovery(7)).
 *
 * GOOD        running the requested mode, link-status GOOD
 * BAD         link-status BAD reported; an answer is planned or waits for
 *             the modeset budget
 * RETRAINING  a mode was committed after BAD; waiting for the link to hold
 * DEGRADED    running a fallback mode, link-status GOOD
 * FAILED      no listed mode passed its test and commit: retried after a
 *             growing backoff (the output is off only if no mode is listed)
 * FLAPPING    BAD again and again at a mode that fits: stepped down to a
 *             mode that needs less bandwidth, modesets spaced by a backoff,
 *             one step back up after each quiet period
 */
enum lg_link_state {
	LG_LINK_GOOD,
	LG_LINK_BAD,
	LG_LINK_RETRAINING,
	LG_LINK_DEGRADED,
	LG_LINK_FAILED,
	LG_LINK_FLAPPING,
};

/** Why a fallback mode replaced the requested one. */
enum lg_fallback_reason {
	LG_FALLBACK_MODE_PRUNED, // the kernel no longer lists the mode
	LG_FALLBACK_TEST_FAILED, // listed, but the atomic test rejected it
	LG_FALLBACK_KNOWN_BAD, // the monitor is known not to hold this mode
	LG_FALLBACK_FLAPPING, // held at the last mode that worked
};

/** What lg_connector_retry() did. */
enum lg_retry_result {
	LG_RETRY_COMMITTED, // the requested mode passed its test and was committed
	LG_RETRY_REJECTED, // the kernel does not take the requested mode now
	LG_RETRY_UNAVAILABLE, // disconnected, no output, nothing requested, or busy
};

/** DisplayPort link parameters, when the backend knows them. */
struct lg_link_params {
	uint32_t lanes; // 1, 2 or 4
	uint32_t rate_mbps; // per-lane rate, e.g. 5400 for HBR2
};

const char *lg_link_state_name(enum lg_link_state state);
const char *lg_link_status_name(enum lg_link_status status);
const char *lg_fallback_reason_name(enum lg_fallback_reason reason);

#endif
