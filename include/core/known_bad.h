#ifndef CORE_KNOWN_BAD_H
#define CORE_KNOWN_BAD_H

/*
 * src/known_bad.c: conn->known_bad, persisted when options.state_dir is
 * set, and what clients are told of them.
 */

#include <stdint.h>
#include <linkguard/connector.h>

/*
 * When mode, one of conn->known_bad, last failed on this monitor: wall
 * clock, seconds since the epoch; 0 when not known.
 */
int64_t known_bad_last_failed(const struct lg_connector *conn,
	const struct lg_mode *mode);
/* Once per connector, when its monitor is known: what the store remembers. */
void known_bad_load(struct lg_connector *conn);
/* The monitor did not hold mode at link (zero: not known) on this connector. */
void known_bad_add(struct lg_connector *conn, const struct lg_mode *mode,
	const struct lg_link_params *link);
/*
 * Whether this start skips mode, one of conn->known_bad, at link: it failed
 * there at the starts before, or where the store knows no link.
 */
bool known_bad_skipped_at(const struct lg_connector *conn, const struct lg_mode *mode,
	const struct lg_link_params *link);
/* The sink left: on a replug every mode is worth trying again. */
void known_bad_forget(struct lg_connector *conn);
/* The link held mode: not bad after all; the store catches up. */
void known_bad_held(struct lg_connector *conn, const struct lg_mode *mode);

#endif
