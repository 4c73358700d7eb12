#ifndef CORE_KNOWN_BAD_H
#define CORE_KNOWN_BAD_H

/*
 * Known-bad modes (src/known_bad.c) beyond what core/connector.h declares
 * for the state machine: what clients are told of them.
 */

#include <stdint.h>
#include <linkguard/connector.h>

/*
 * When mode, one of conn->known_bad, last failed on this monitor: wall
 * clock, seconds since the epoch; 0 when not known.
 */
int64_t known_bad_last_failed(const struct lg_connector *conn,
	const struct lg_mode *mode);

#endif
