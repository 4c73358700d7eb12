#ifndef CORE_CONNECTOR_H
#define CORE_CONNECTOR_H

#include <linkguard/backend.h>
#include <core/state.h>

/* Feeds event to the state machine, logs and announces any change. */
void connector_handle_event(struct lg_connector *conn, enum lg_link_event event);
/* Emits state_change after a field a client can see has changed. */
void connector_changed(struct lg_connector *conn);
/* Reads link-status and link parameters (no probe). */
void connector_read_link(struct lg_connector *conn);
/* Forced probe through the backend into conn->modes. */
bool connector_probe(struct lg_connector *conn);
bool connector_at_requested(const struct lg_connector *conn);

/* recovery.c */
struct recovery_plan {
	struct lg_connector *conn;
	struct lg_mode mode; // tested, to be committed
	struct lg_mode from; // what ran before
	bool has_requested;
	struct lg_mode requested;
};

void recovery_cancel(struct lg_connector *conn);
/* A state that enables output at mode; false if the backend can't set it. */
bool recovery_build_state(struct lg_connector *conn,
	struct wlr_output_state *state, const struct lg_mode *mode);
/* The tested mode that answers BAD; false when recovery ended (failed, gone). */
bool recovery_plan(struct lg_connector *conn, struct recovery_plan *plan);
/* After plan->mode was committed: settle timer, fallback report. */
void recovery_committed(const struct recovery_plan *plan);
/* Plans and commits one connector's recovery, trying on if a commit fails. */
void recovery_run(struct lg_connector *conn);
/* Holds a flapping link at its last working mode. */
void recovery_hold(struct lg_connector *conn);
void recovery_handle_mode_set(struct lg_connector *conn);
/* The mode to offer a new output: requested if it fits, else a fallback. */
bool recovery_choose_initial(struct lg_connector *conn, struct lg_mode *mode);

/* known_bad.c: conn->known_bad, persisted when options.state_dir is set. */
/* Once per connector, when its monitor is known: what the store remembers. */
void known_bad_load(struct lg_connector *conn);
/* The monitor did not hold mode on this connector. */
void known_bad_add(struct lg_connector *conn, const struct lg_mode *mode);
/* The sink left: on a replug every mode is worth trying again. */
void known_bad_forget(struct lg_connector *conn);
/* The link held mode: not bad after all; the store catches up. */
void known_bad_held(struct lg_connector *conn, const struct lg_mode *mode);

uint64_t lg_now_ms(void);

#endif
