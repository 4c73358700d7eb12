#ifndef SIM_SINK_H
#define SIM_SINK_H

#include <stddef.h>
#include <stdint.h>
#include <linkguard/mode.h>

/* A monitor as its EDID and DPCD describe it. */
struct sim_sink {
	const char *name; // the profile name scenarios use
	const char *description;
	uint32_t max_lanes, max_rate_mbps, max_bpc;
	const struct lg_mode *modes;
	size_t n_modes;
};

const struct sim_sink *sim_sink_find(const char *name);

#endif
