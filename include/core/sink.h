#ifndef CORE_SINK_H
#define CORE_SINK_H

/*
 * src/sink.c: the sink's own view of its link, from its DPCD, read once the
 * link settled after a hotplug or a modeset, and then polled.
 */

#include <stdbool.h>

struct lg_connector;

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

#endif
