#ifndef CORE_CONNECTOR_H
#define CORE_CONNECTOR_H

#include <linkguard/backend.h>
#include <core/history.h>
#include <core/machine.h>

struct lg_driver;

/*
 * A step of a recovery at debug, with CLOCK_MONOTONIC's time (the clock of
 * the kernel's own timestamps): where the time to picture goes.
 */
void connector_trace(struct lg_connector *conn, const char *step,
	const struct lg_mode *mode);
/* Emits state_change after a field a client can see has changed. */
void connector_changed(struct lg_connector *conn);
/* Reads link-status and link parameters (no probe). */
void connector_read_link(struct lg_connector *conn);
/*
 * sink.c: reads the sink's DPCD status, when the backend can, once the
 * link settled after a hotplug or a modeset, and then polls it.
 */
bool sink_create(struct lg_connector *conn);
void sink_destroy(struct lg_connector *conn);
/* A hotplug event: read once the link settled. */
void sink_hotplug(struct lg_connector *conn);
/* A modeset (or a disable) was committed: read again once it settled. */
void sink_modeset(struct lg_connector *conn);
/* The link held for settle_ms: read it now, unless read since the change. */
void sink_settled(struct lg_connector *conn);
/* The output or the sink is gone: no reads, nothing known. */
void sink_stop(struct lg_connector *conn);
/* Forced probe through the backend into conn->modes. */
bool connector_probe(struct lg_connector *conn);
/* The monitor's identity from the backend (EDID), or NULL. */
const char *connector_identity(struct lg_connector *conn);

/*
 * configure.c: resolves conn->settings and conn->options for the connector
 * and monitor (its identity, or NULL), and applies them. True when they
 * changed.
 */
bool connector_configure(struct lg_connector *conn, const char *monitor);

/* recovery.c: the state machine's driver on wlroots (core/driver.h). */
bool recovery_create(struct lg_connector *conn);
/* The machine takes conn->options from its next event on. */
void recovery_configure(struct lg_connector *conn);
void recovery_destroy(struct lg_connector *conn);
/* Feeds the connector's state machine one event and runs what follows. */
void recovery_feed(struct lg_connector *conn, enum lg_machine_event_type type);
struct lg_driver *recovery_driver(struct lg_connector *conn);
/* The answer to a commit the driver deferred (several connectors at once). */
void recovery_committed(struct lg_connector *conn, bool ok);
/* A BAD that no commit has answered yet. */
bool recovery_answering(const struct lg_connector *conn);
/* No timer armed: nothing pending for this connector. */
bool recovery_idle(const struct lg_connector *conn);
/* A state that enables output at mode; false if the backend can't set it. */
bool recovery_build_state(struct lg_connector *conn,
	struct wlr_output_state *state, const struct lg_mode *mode);
/* Commits mode through the compositor's hook or wlroots (logged on failure). */
bool recovery_commit_mode(struct lg_connector *conn, const struct lg_mode *mode);
/* The mode to offer a new output: requested if it fits, else a fallback. */
bool recovery_recommend(struct lg_connector *conn, struct lg_mode *mode);

/* known_bad.c: conn->known_bad, persisted when options.state_dir is set. */
/* Once per connector, when its monitor is known: what the store remembers. */
void known_bad_load(struct lg_connector *conn);
/* The monitor did not hold mode on this connector. */
void known_bad_add(struct lg_connector *conn, const struct lg_mode *mode);
/* The sink left: on a replug every mode is worth trying again. */
void known_bad_forget(struct lg_connector *conn);
/* The link held mode: not bad after all; the store catches up. */
void known_bad_held(struct lg_connector *conn, const struct lg_mode *mode);

/*
 * incident.c: the incident under way and the connector's history, kept by
 * the driver (the machine decides, this records what came of it).
 */
struct lg_incidents {
	struct lg_history history;
	bool open;
	bool retrying; // inside a client's retry
	bool unlocked; // inside the sink monitor's report of a dark link
	bool restored; // the machine reported the requested mode back
	struct lg_incident pending;
	uint64_t opened_ms;
	enum lg_incident_reason last_reason; // of the last incident recorded
};
void incidents_init(struct lg_incidents *incidents);
/* An action the machine reported: STATE, FALLBACK, RESTORED, FAILED, FLAPPING. */
void incident_report(struct lg_connector *conn, const struct lg_action *action);
/* linkguard is about to modeset: an incident if none is under way. */
void incident_commit(struct lg_connector *conn);
/* The machine waits again: records the incident if recovery came to rest. */
void incident_rest(struct lg_connector *conn);
/* recovery.c: the connector's incidents. */
struct lg_incidents *recovery_incidents(struct lg_connector *conn);
const struct lg_history *connector_history(const struct lg_connector *conn);

uint64_t lg_now_ms(void);

#endif
