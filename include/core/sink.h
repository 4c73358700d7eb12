#ifndef CORE_SINK_H
#define CORE_SINK_H

/*
 * src/sink.c: the sink's own view of its link, from its DPCD, read when the
 * state machine asks (LG_ACTION_READ_SINK).
 */

#include <stdbool.h>
#include <core/machine.h>

struct lg_connector;

/*
 * Reads the sink into the connector (connector_changed() when a client
 * sees a difference); false when it could not. *unlocked: a dark link
 * (lanes not locked or not aligned, the output enabled, link-status GOOD);
 * *errors: the symbol errors counted since the read before, none of a
 * 128b/132b link (not decoded).
 */
/*
 * The reads of the sink that happen now (enum lg_sink_reads bits): none
 * without LG_SINK_READS_EVENTS, where read-dpcd is off, and on an internal
 * panel unless read-dpcd is on.
 */
uint32_t sink_reads(const struct lg_connector *conn);
bool sink_read(struct lg_connector *conn, bool *unlocked, struct lg_sink_errors *errors);
/* The output or the sink is gone: nothing is known. */
void sink_stop(struct lg_connector *conn);

#endif
