#ifndef CORE_BACKEND_H
#define CORE_BACKEND_H

/* src/backend.c: the core's calls on a connector's backend. */

#include <linkguard/backend.h>

/* Emits state_change after a field a client can see has changed. */
void connector_changed(struct lg_connector *conn);
/* Reads link-status and link parameters (no probe). */
void connector_read_link(struct lg_connector *conn);
/*
 * Forced probe through the backend into conn->modes. It reads no
 * link-status: a probe leaves it as the event that asked for it found it.
 */
enum lg_probe_result connector_probe(struct lg_connector *conn);
/* The monitor's identity from the backend (EDID), or NULL. */
const char *connector_identity(struct lg_connector *conn);

#endif
