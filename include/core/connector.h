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
void recovery_cancel(struct lg_connector *conn);
void recovery_handle_mode_set(struct lg_connector *conn);
/* The mode to offer a new output: requested if it fits, else a fallback. */
bool recovery_choose_initial(struct lg_connector *conn, struct lg_mode *mode);

uint64_t lg_now_ms(void);

#endif
