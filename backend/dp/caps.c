/*
 * DPCD receiver capabilities (DisplayPort 1.4 section 2.9.3.1, eDP 1.4
 * section 3.5.1.2 for the rate table, DisplayPort 2.0 for 128b/132b).
 */
#include <dp/caps.h>

bool dp_caps_want_ext(const struct dpcd_caps_regs *regs) {
	return regs->base[DPCD_TRAINING_AUX_RD_INTERVAL] &
		DPCD_EXTENDED_RECEIVER_CAP_FIELD_PRESENT;
}

/*
 * The eDP table: rates in 200 kHz units, ascending, ending at the first
 * zero; true with rates->len 0 when the sink has no table.
 */
static bool edp_rates(const uint8_t *base, struct dp_rates *rates) {
	rates->len = 0;
	for (size_t i = 0; i < DP_MAX_RATES; i++) {
		const uint8_t *entry = &base[DPCD_SUPPORTED_LINK_RATES + 2 * i];
		uint32_t mbps = (uint32_t)(entry[0] | entry[1] << 8) * 200 / 1000;
		if (mbps == 0) {
			break;
		}
		if (rates->len > 0 && mbps <= rates->mbps[rates->len - 1]) {
			return false;
		}
		rates->mbps[rates->len++] = mbps;
	}
	return true;
}

static void add_uhbr(const struct dpcd_caps_regs *regs, struct dp_rates *rates) {
	const uint8_t *caps = regs->ext;
	if (!(caps[DPCD_MAIN_LINK_CHANNEL_CODING] & DPCD_CAP_ANSI_128B132B)) {
		return;
	}
	uint8_t uhbr = caps[DPCD_128B132B_SUPPORTED_LINK_RATES];
	// Ascending, as the kernel's common rates.
	if (uhbr & DPCD_UHBR10) {
		rates->mbps[rates->len++] = DP_RATE_UHBR10;
	}
	if (uhbr & DPCD_UHBR13_5) {
		rates->mbps[rates->len++] = DP_RATE_UHBR13_5;
	}
	if (uhbr & DPCD_UHBR20) {
		rates->mbps[rates->len++] = DP_RATE_UHBR20;
	}
}

bool dp_caps_decode(const struct dpcd_caps_regs *regs, struct dp_sink_caps *caps) {
	// The extended field replaces 0x000-0x00f where the sink has one.
	const uint8_t *field = regs->has_ext && regs->ext[0] != 0 ?
		regs->ext : regs->base;
	caps->max_lanes = field[DPCD_MAX_LANE_COUNT] & 0x1f;
	if (caps->max_lanes != 1 && caps->max_lanes != 2 && caps->max_lanes != 4) {
		return false;
	}
	if (!edp_rates(regs->base, &caps->rates)) {
		return false;
	}
	if (caps->rates.len > 0) {
		return true;
	}
	// MAX_LINK_RATE in 0.27 Gbit/s units: the 8b/10b rates up to it.
	uint32_t max_mbps = (uint32_t)field[DPCD_MAX_LINK_RATE] * 270;
	if (max_mbps < DP_RATE_RBR) {
		return false;
	}
	dp_rates_up_to(&caps->rates, max_mbps < DP_RATE_HBR3 ? max_mbps : DP_RATE_HBR3);
	if (field == regs->ext) {
		add_uhbr(regs, &caps->rates);
	}
	return true;
}
