#ifndef CORE_JOURNAL_H
#define CORE_JOURNAL_H

/*
 * Incidents in the systemd journal: one structured entry each, with the
 * MESSAGE_ID and fields linkguard(7) documents (JOURNAL), so that a fleet
 * can count them with journalctl. src/incident.c calls it as it records an
 * incident in the history.
 */

#include <stdint.h>
#include <linkguard/incident.h>

/* An incident as text, as the log line says it; NULL for what is unknown. */
struct journal_incident {
	const char *connector; // "DP-1"
	const char *monitor; // the monitor's identity (EDID), or NULL
	enum lg_incident_outcome outcome;
	enum lg_incident_reason reason;
	const char *mode_before, *mode_after; // "3840x2160@60.000", or NULL
	const char *link_before, *link_after; // "4 x 5400 Mbit/s", or NULL
	uint32_t duration_ms;
	const char *message; // the log line, without the connector's name
};

/* Sends it when the journal is there (its socket exists); else nothing. */
void journal_send_incident(const struct journal_incident *incident);

#endif
