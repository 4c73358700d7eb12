#ifndef CORE_INCIDENT_H
#define CORE_INCIDENT_H

/* src/incident.c: what came of each incident on a connector. */

#include <stdbool.h>
#include <stdint.h>
#include <core/history.h>
#include <core/machine.h>

struct lg_connector;
struct lg_driver;

/*
 * The incident under way and the connector's history, kept by
 * the driver (the machine decides, this records what came of it).
 */
struct lg_incidents {
	struct lg_connector *conn;
	const struct lg_driver *driver; // recovery.c's, whose state says when recovery rests
	struct lg_history history;
	bool open;
	bool retrying; // inside a client's retry
	bool unlocked; // inside the sink monitor's report of a dark link
	bool restored; // the machine reported the requested mode back
	bool fell_back, stepped_up; // the machine reported a fallback, a step up
	struct lg_incident pending;
	uint64_t opened_ms;
	enum lg_incident_reason last_reason; // of the last incident recorded
};
void incidents_init(struct lg_incidents *incidents, struct lg_connector *conn,
	const struct lg_driver *driver);
/*
 * An action the machine reported: STATE, FALLBACK, STEP_UP, RESTORED,
 * FAILED, FLAPPING.
 */
void incident_report(struct lg_incidents *incidents, const struct lg_action *action);
/* linkguard is about to modeset: an incident if none is under way. */
void incident_commit(struct lg_incidents *incidents);
/* The machine waits again: records the incident if recovery came to rest. */
void incident_rest(struct lg_incidents *incidents);

#endif
