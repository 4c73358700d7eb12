#ifndef DP_CAPS_H
#define DP_CAPS_H

/*
 * A sink's DisplayPort receiver capabilities, from its DPCD: the link
 * rates and lane count it supports, decoded the way the kernel reads them
 * (drm_dp_read_dpcd_caps(), intel_dp_set_sink_rates()).
 */

#include <stdbool.h>
#include <stdint.h>
#include <dp/dp.h>

#define DPCD_CAPS 0x000
#define DPCD_CAPS_LEN 0x20 // 0x000-0x01f: DPCD_REV .. the eDP link rate table
#define DPCD_EXT_CAPS 0x2200
#define DPCD_EXT_CAPS_LEN 0x20 // 0x2200-0x221f: the extended field, 128b/132b rates

/* Offsets into the blocks above. */
#define DPCD_MAX_LINK_RATE 0x01
#define DPCD_MAX_LANE_COUNT 0x02
#define DPCD_MAIN_LINK_CHANNEL_CODING 0x06
#define DPCD_TRAINING_AUX_RD_INTERVAL 0x0e
#define DPCD_SUPPORTED_LINK_RATES 0x10 // eDP 1.4: 8 rates, 16 bits, 200 kHz units
#define DPCD_128B132B_SUPPORTED_LINK_RATES 0x15 // in the extended block

#define DPCD_EXTENDED_RECEIVER_CAP_FIELD_PRESENT 0x80
#define DPCD_CAP_ANSI_128B132B 0x02
#define DPCD_UHBR10 0x01
#define DPCD_UHBR20 0x02
#define DPCD_UHBR13_5 0x04

/* The blocks as the sink returned them. */
struct dpcd_caps_regs {
	uint8_t base[DPCD_CAPS_LEN];
	bool has_ext; // the sink has the extended field and it was read
	uint8_t ext[DPCD_EXT_CAPS_LEN];
};

struct dp_sink_caps {
	struct dp_rates rates; // ascending
	uint32_t max_lanes; // 1, 2 or 4
};

/*
 * Whether the extended field is to be read too (DPCD 0x00e bit 7): DP 1.4
 * sinks report HBR3 and 128b/132b only there.
 */
bool dp_caps_want_ext(const struct dpcd_caps_regs *regs);
/*
 * Decodes regs: the eDP rate table where the sink lists one, else the
 * standard rates up to MAX_LINK_RATE, with the UHBR rates of the extended
 * field. False, *caps undefined, for contents no DisplayPort sink reports
 * (no rate, a lane count of 0, 3 or above 4, a table out of order): a sink
 * asleep or an AUX reply of garbage.
 */
bool dp_caps_decode(const struct dpcd_caps_regs *regs, struct dp_sink_caps *caps);

#endif
