#ifndef CORE_DPCD_H
#define CORE_DPCD_H

/*
 * The DisplayPort sink's own view of its link: the DPCD registers linkguard
 * reads, and their meaning. Pure: the DRM backend reads the bytes from the
 * kernel's AUX device, the sim models them; both decode them here.
 */

#include <stdbool.h>
#include <stdint.h>
#include <linkguard/link.h>

#define DPCD_LINK_BW_SET 0x100
#define DPCD_LINK_LEN 9 // 0x100-0x108: LINK_BW_SET .. MAIN_LINK_CHANNEL_CODING_SET
#define DPCD_SINK_COUNT 0x200
#define DPCD_STATUS_LEN 6 // 0x200-0x205: SINK_COUNT .. SINK_STATUS
#define DPCD_SYMBOL_ERROR_COUNT_LANE0 0x210
#define DPCD_ERRORS_LEN 8 // 0x210-0x217: two bytes per lane, low byte first

/* Offsets into the blocks above. */
#define DPCD_LANE_COUNT_SET 0x01
#define DPCD_CHANNEL_CODING_SET 0x08
#define DPCD_LANE0_1_STATUS 0x02
#define DPCD_LANE_ALIGN_STATUS_UPDATED 0x04
#define DPCD_SINK_STATUS 0x05

#define DPCD_CODING_8B10B 0x01
#define DPCD_CODING_128B132B 0x02
/* Per-lane nibble of LANE0_1/LANE2_3_STATUS. */
#define DPCD_LANE_CR_DONE 0x1
#define DPCD_LANE_CHANNEL_EQ_DONE 0x2
#define DPCD_LANE_SYMBOL_LOCKED 0x4
#define DPCD_INTERLANE_ALIGN_DONE 0x01
#define DPCD_RECEIVE_PORT_0_STATUS 0x01
/* SYMBOL_ERROR_COUNT_LANEx: bits 14:0 the count, bit 15 ERROR_COUNT_VALID. */
#define DPCD_ERROR_COUNT_VALID 0x8000
#define DPCD_ERROR_COUNT_MASK 0x7fff

/* The three blocks as the sink returned them. */
struct dpcd_regs {
	uint8_t link[DPCD_LINK_LEN];
	uint8_t status[DPCD_STATUS_LEN];
	uint8_t errors[DPCD_ERRORS_LEN];
};

/*
 * Decodes regs. Returns false, with *status cleared, for register contents
 * no trained DisplayPort link has (a lane count of 0, 3 or above 4, an
 * unknown channel coding): a sink asleep or an AUX reply of garbage.
 */
bool dpcd_decode(const struct dpcd_regs *regs, struct lg_sink_status *status);

#endif
