#ifndef CORE_SINK_H
#define CORE_SINK_H

/* src/sink.c: the sink's own view of its link, from its DPCD. */

#include <stdbool.h>

struct lg_connector;

/* Reads the sink's DPCD status, when the backend can; whether a field a
 * client sees changed. */
bool sink_read(struct lg_connector *conn);
bool sink_create(struct lg_connector *conn);
void sink_destroy(struct lg_connector *conn);
/* A modeset (or a disable) was committed: read again once it settled. */
void sink_modeset(struct lg_connector *conn);
/* The output or the sink is gone: no reads, nothing known. */
void sink_stop(struct lg_connector *conn);

#endif
