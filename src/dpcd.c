/*
 * DPCD link and sink status (DisplayPort 1.4 section 2.9.3, registers
 * 0x100-0x108, 0x200-0x205 and 0x210-0x217), decoded the way the kernel's
 * drm_dp_helper.c reads them during link training.
 */
#include <string.h>
#include <core/dpcd.h>

/* The per-lane rate a LINK_BW_SET code selects, in Mbit/s; 0: unknown. */
static uint32_t rate_mbps(uint8_t bw_code, bool uhbr) {
	if (!uhbr) {
		// 8b/10b: multiples of 0.27 Gbit/s (0x06 RBR .. 0x1e HBR3); 0
		// means the rate came from LINK_RATE_SET (eDP 1.4), not read here.
		return (uint32_t)bw_code * 270;
	}
	switch (bw_code) {
	case 0x01:
		return 10000;
	case 0x04:
		return 13500;
	case 0x02:
		return 20000;
	}
	return 0;
}

static uint8_t lane_nibble(const uint8_t *status, uint32_t lane) {
	return (status[DPCD_LANE0_1_STATUS + lane / 2] >> (4 * (lane % 2))) & 0xf;
}

static void decode_8b10b(const struct dpcd_regs *regs, struct lg_sink_status *status) {
	const uint8_t locked = DPCD_LANE_CR_DONE | DPCD_LANE_CHANNEL_EQ_DONE |
		DPCD_LANE_SYMBOL_LOCKED;
	for (uint32_t lane = 0; lane < status->link.lanes; lane++) {
		if ((lane_nibble(regs->status, lane) & locked) == locked) {
			status->lanes_locked |= 1u << lane;
		}
		uint16_t count = (uint16_t)(regs->errors[2 * lane] |
			regs->errors[2 * lane + 1] << 8);
		if (count & DPCD_ERROR_COUNT_VALID) {
			status->errors_valid |= 1u << lane;
			status->errors[lane] = count & DPCD_ERROR_COUNT_MASK;
		}
	}
	status->aligned = regs->status[DPCD_LANE_ALIGN_STATUS_UPDATED] &
		DPCD_INTERLANE_ALIGN_DONE;
}

bool dpcd_decode(const struct dpcd_regs *regs, struct lg_sink_status *status) {
	memset(status, 0, sizeof(*status));
	uint8_t coding = regs->link[DPCD_CHANNEL_CODING_SET];
	// Before DisplayPort 1.2 the register was reserved (zero): 8b/10b.
	if (coding != 0 && coding != DPCD_CODING_8B10B &&
			coding != DPCD_CODING_128B132B) {
		return false;
	}
	uint32_t lanes = regs->link[DPCD_LANE_COUNT_SET] & 0x1f;
	if (lanes != 0 && lanes != 1 && lanes != 2 && lanes != 4) {
		return false;
	}
	bool uhbr = coding == DPCD_CODING_128B132B;
	uint8_t count = regs->status[0];
	*status = (struct lg_sink_status){
		.link = {
			.lanes = lanes,
			.rate_mbps = lanes == 0 ? 0 : rate_mbps(regs->link[0], uhbr),
		},
		.uhbr = uhbr,
		// SINK_COUNT: bits 5:0, and bit 7 as bit 6 (DP_GET_SINK_COUNT).
		.sink_count = (uint32_t)(((count & 0x80) >> 1) | (count & 0x3f)),
		.in_sync = regs->status[DPCD_SINK_STATUS] & DPCD_RECEIVE_PORT_0_STATUS,
	};
	if (!uhbr) {
		decode_8b10b(regs, status);
	}
	return true;
}

bool lg_sink_status_locked(const struct lg_sink_status *status) {
	if (status->uhbr || status->link.lanes == 0) {
		return false;
	}
	uint8_t all = (uint8_t)((1u << status->link.lanes) - 1);
	return status->aligned && (status->lanes_locked & all) == all;
}
