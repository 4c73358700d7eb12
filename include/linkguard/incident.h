#ifndef LINKGUARD_INCIDENT_H
#define LINKGUARD_INCIDENT_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#include <linkguard/link.h>
#include <linkguard/mode.h>

struct lg_connector;

/**
 * Why an incident happened. The first four are lg_fallback_reason's, with
 * the same values; the protocol's incident_reason carries these unchanged.
 */
enum lg_incident_reason {
	LG_INCIDENT_MODE_PRUNED = LG_FALLBACK_MODE_PRUNED,
	LG_INCIDENT_TEST_FAILED = LG_FALLBACK_TEST_FAILED,
	LG_INCIDENT_KNOWN_BAD = LG_FALLBACK_KNOWN_BAD,
	LG_INCIDENT_FLAPPING = LG_FALLBACK_FLAPPING,
	LG_INCIDENT_LINK_BAD, // link-status BAD; the mode still fit the link
	LG_INCIDENT_NO_MODES, // the kernel listed no mode
	LG_INCIDENT_ALL_REJECTED, // no listed mode passed its test and commit
	LG_INCIDENT_PROBE_FAILED, // the forced probe failed
	LG_INCIDENT_RETRY, // a client asked for the requested mode
	LG_INCIDENT_SINK_UNLOCKED, // the sink lost lock, link-status GOOD
	LG_INCIDENT_LINK_ERRORS, // symbol errors above the threshold: a step down
};

/** How an incident ended: where the connector was left. */
enum lg_incident_outcome {
	LG_INCIDENT_RETRAINED, // the same mode runs again and the link holds
	LG_INCIDENT_RESTORED, // back at the requested mode after running another
	LG_INCIDENT_DEGRADED, // a fallback mode runs and the link holds
	LG_INCIDENT_HELD, // flapping: held at a mode, modesets spaced
	LG_INCIDENT_FAILED, // no mode was set: retried after a backoff
	LG_INCIDENT_GONE, // the monitor or the output left before it settled
	/*
	 * A better mode than before runs and the link holds, not yet the
	 * requested one (the reason says why not): a step back up, never a
	 * fallback.
	 */
	LG_INCIDENT_STEP_UP,
};

/**
 * One incident on a connector: from the moment the link needed linkguard
 * (link-status BAD, a retry, a step while flapping) until the recovery came
 * to rest, with the mode and link before and after. A mode or link that was
 * not known is all zero.
 */
struct lg_incident {
	struct lg_connector *connector;
	enum lg_incident_reason reason;
	enum lg_incident_outcome outcome;
	struct lg_mode mode_before, mode_after;
	struct lg_link_params link_before, link_after;
	struct timespec when; // CLOCK_REALTIME when it began
	uint32_t duration_ms; // until it came to rest
};

const char *lg_incident_reason_name(enum lg_incident_reason reason);
const char *lg_incident_outcome_name(enum lg_incident_outcome outcome);

#endif
