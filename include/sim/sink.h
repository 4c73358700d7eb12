#ifndef SIM_SINK_H
#define SIM_SINK_H

#include <stddef.h>
#include <stdint.h>
#include <linkguard/mode.h>

/*
 * A monitor as its EDID and DPCD describe it: its modes with exact pixel
 * clocks (one of them preferred), and the link it can train.
 */
struct sim_sink {
	const char *name; // the profile name scenarios use
	const char *description;
	uint32_t max_lanes, max_rate_mbps, max_bpc;
	const struct lg_mode *modes;
	size_t n_modes;
};

/* The profile scenarios call name ("4k60", "1440p144", ...), or NULL. */
const struct sim_sink *sim_sink_find(const char *name);
/* The sink's preferred mode (the first one when none is marked). */
const struct lg_mode *sim_sink_preferred(const struct sim_sink *sink);

#endif
