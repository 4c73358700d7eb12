#ifndef LINKGUARD_LINK_H
#define LINKGUARD_LINK_H

#include <stdbool.h>
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
 * BAD         link-status BAD reported, or the sink lost lock with
 *             link-status GOOD; an answer is planned or waits for the
 *             modeset budget
 * RETRAINING  a mode was committed after BAD; waiting for the link to hold
 * DEGRADED    running a fallback mode, or the requested one while the sink
 *             counts symbol errors above the threshold; link-status GOOD
 * FAILED      no listed mode passed its test and commit: retried after a
 *             growing backoff (the output is off only if no mode is listed)
 * FLAPPING    BAD again and again at a mode that fits: stepped down once
 *             to a mode the kernel trains at a lower link, or back at the
 *             best mode when it flapped as much there; modesets spaced by
 *             a backoff; straight back to the best mode once quiet
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
	LG_FALLBACK_SINK_UNLOCKED, // the sink lost lock at the mode, link-status GOOD
	LG_FALLBACK_LINK_ERRORS, // the sink counted symbol errors above the threshold
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

/**
 * The sink's own view of its link, from its DPCD (DisplayPort only): what
 * the kernel trained, whether the sink's receiver holds it, and the symbol
 * errors it counted. 128b/132b links (UHBR) have other status registers:
 * for them only link is decoded and uhbr is set.
 */
struct lg_sink_status {
	struct lg_link_params link; // lanes 0: not trained; rate 0: not in LINK_BW_SET (eDP)
	bool uhbr; // 128b/132b channel coding: lock and error fields not decoded
	uint32_t sink_count;
	uint8_t lanes_locked; // bit i: lane i has clock recovery, channel EQ and symbol lock
	bool aligned; // interlane alignment done
	bool in_sync; // SINK_STATUS: receive port 0 is in sync
	uint8_t errors_valid; // bit i: errors[i] is a valid count
	uint16_t errors[4]; // symbol errors per lane since the last read (15 bits)
};

/**
 * The sink receives the link: every trained lane locked, the lanes aligned
 * (the kernel's drm_dp_channel_eq_ok()). False for an untrained or UHBR link.
 */
bool lg_sink_status_locked(const struct lg_sink_status *status);

const char *lg_link_state_name(enum lg_link_state state);
const char *lg_link_status_name(enum lg_link_status status);
const char *lg_fallback_reason_name(enum lg_fallback_reason reason);

#endif
