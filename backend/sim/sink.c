#include <string.h>
#include <dp/dp.h>
#include <sim/sink.h>

/*
 * Timings are the monitors' own (CTA-861 and CVT reduced blanking) with
 * their exact pixel clocks: bandwidth is what the link model checks.
 */
#define MODE(w, h, refresh, clock, pref) \
	{ .width = w, .height = h, .refresh_mhz = refresh, .clock_khz = clock, \
		.preferred = pref }

static const struct lg_mode uhd_modes[] = {
	MODE(3840, 2160, 60000, 533250, true),
	MODE(3840, 2160, 30000, 297000, false),
	MODE(2560, 1440, 59951, 241500, false),
	MODE(1920, 1080, 60000, 148500, false),
	MODE(1280, 720, 60000, 74250, false),
	MODE(1024, 768, 60004, 65000, false),
	MODE(640, 480, 59940, 25175, false),
};

/* No mode below 720p: at RBR x1 nothing is left (the zero-modes case). */
static const struct lg_mode qhd144_modes[] = {
	MODE(2560, 1440, 143912, 586590, true),
	MODE(2560, 1440, 119998, 497750, false),
	MODE(2560, 1440, 59951, 241500, false),
	MODE(1920, 1080, 143981, 325080, false),
	MODE(1920, 1080, 60000, 148500, false),
	MODE(1280, 720, 60000, 74250, false),
};

static const struct lg_mode fhd_modes[] = {
	MODE(1920, 1080, 60000, 148500, true),
	MODE(1280, 720, 60000, 74250, false),
	MODE(1024, 768, 60004, 65000, false),
	MODE(640, 480, 59940, 25175, false),
};

/*
 * CVT-RB2 clocks: 8K60 needs UHBR, and still fits UHBR10 x4 at 18 bpp. On
 * SST, 6.12 lists it but trains HBR3 at most: only MST sets it (i915.h).
 */
static const struct lg_mode uhd8k_modes[] = {
	MODE(7680, 4320, 60000, 2068301, true),
	MODE(7680, 4320, 30000, 1019897, false),
	MODE(3840, 2160, 120000, 1075805, false),
	MODE(3840, 2160, 60000, 533250, false),
	MODE(1920, 1080, 60000, 148500, false),
};

#define N(modes) (sizeof(modes) / sizeof(modes[0]))

static const struct sim_sink sinks[] = {
	{ "4k60", "Simulated 4K60 monitor (DP, HBR3 x4)",
		4, DP_RATE_HBR3, 10, uhd_modes, N(uhd_modes) },
	{ "1440p144", "Simulated 1440p144 monitor (DP, HBR2 x4)",
		4, DP_RATE_HBR2, 8, qhd144_modes, N(qhd144_modes) },
	{ "1080p60-rbr", "Simulated 1080p60 panel (DP, RBR x4)",
		4, DP_RATE_RBR, 8, fhd_modes, N(fhd_modes) },
	{ "uhbr-8k", "Simulated 8K60 monitor (DP 2.1, UHBR20 x4)",
		4, DP_RATE_UHBR20, 10, uhd8k_modes, N(uhd8k_modes) },
};

const struct sim_sink *sim_sink_find(const char *name) {
	for (size_t i = 0; i < N(sinks); i++) {
		if (strcmp(sinks[i].name, name) == 0) {
			return &sinks[i];
		}
	}
	return NULL;
}

const struct lg_mode *sim_sink_preferred(const struct sim_sink *sink) {
	for (size_t i = 0; i < sink->n_modes; i++) {
		if (sink->modes[i].preferred) {
			return &sink->modes[i];
		}
	}
	return &sink->modes[0];
}
