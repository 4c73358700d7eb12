#ifndef CORE_RECOVERY_H
#define CORE_RECOVERY_H

/* src/recovery.c: the state machine's driver on wlroots (core/driver.h). */

#include <stdbool.h>
#include <stdint.h>
#include <core/machine.h>

struct lg_connector;
struct lg_driver;
struct lg_history;
struct lg_incidents;
struct wlr_output_state;

/*
 * gone: unplugs the connector when a forced probe found its sink gone,
 * once the step that probed is over (lg_connector_set_connected()).
 */
bool recovery_create(struct lg_connector *conn,
	void (*gone)(struct lg_connector *conn));
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
/*
 * The compositor committed a mode; previous: what the output ran
 * before (NULL: none). The machine decides whether it becomes the requested
 * mode.
 */
void recovery_mode_set(struct lg_connector *conn, const struct lg_mode *previous);
/* A state that enables output at mode; false if the backend can't set it. */
bool recovery_build_state(struct lg_connector *conn,
	struct wlr_output_state *state, const struct lg_mode *mode);
/* Commits mode through the compositor's hook or wlroots (logged on failure). */
bool recovery_commit_mode(struct lg_connector *conn, const struct lg_mode *mode);
/* The mode to offer a new output: requested if it fits, else a fallback. */
bool recovery_recommend(struct lg_connector *conn, struct lg_mode *mode);
/* The connector's incidents (core/incident.h) and their history. */
struct lg_incidents *recovery_incidents(struct lg_connector *conn);
const struct lg_history *connector_history(const struct lg_connector *conn);

#endif
