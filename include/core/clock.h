#ifndef CORE_CLOCK_H
#define CORE_CLOCK_H

#include <stdint.h>

/* CLOCK_MONOTONIC in milliseconds: what the machine's timers count. */
uint64_t lg_now_ms(void);

struct lg_connector;
struct lg_mode;
/*
 * A step of a recovery at debug, with CLOCK_MONOTONIC's time (the clock of
 * the kernel's own timestamps): where the time to picture goes.
 */
void connector_trace(struct lg_connector *conn, const char *step,
	const struct lg_mode *mode);

#endif
