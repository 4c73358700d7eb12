#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <dp/dp.h>

/* Ascending, as i915 keeps its common_rates[]. */
static const struct {
	const char *name;
	uint32_t rate_mbps;
} dp_rates[] = {
	{ "rbr", DP_RATE_RBR },
	{ "hbr", DP_RATE_HBR },
	{ "hbr2", DP_RATE_HBR2 },
	{ "hbr3", DP_RATE_HBR3 },
	{ "uhbr10", DP_RATE_UHBR10 },
	{ "uhbr13.5", DP_RATE_UHBR13_5 },
	{ "uhbr20", DP_RATE_UHBR20 },
};

#define N_RATES (sizeof(dp_rates) / sizeof(dp_rates[0]))
_Static_assert(N_RATES <= DP_MAX_RATES, "struct dp_rates holds the standard rates");

uint64_t dp_link_payload_kbps(const struct lg_link_params *link) {
	uint64_t raw_kbps = (uint64_t)link->rate_mbps * 1000 * link->lanes;
	/*
	 * DP 1.x rates use 8b/10b channel coding, DP 2.x UHBR rates 128b/132b,
	 * whose 128/132 the kernel lowers further for link and PHY control
	 * symbols and FEC: 96.71 % (drm_dp_bw_channel_coding_efficiency()).
	 */
	if (dp_rate_is_uhbr(link->rate_mbps)) {
		return raw_kbps * 9671 / 10000;
	}
	return raw_kbps * 8 / 10;
}

bool dp_mode_fits(const struct lg_mode *mode, uint32_t bpp,
		const struct lg_link_params *link) {
	return (uint64_t)mode->clock_khz * bpp <= dp_link_payload_kbps(link);
}

bool dp_mode_valid(const struct lg_mode *mode, const struct lg_link_params *link) {
	return dp_mode_fits(mode, DP_MIN_BPP, link);
}

size_t dp_rate_count(void) {
	return N_RATES;
}

uint32_t dp_rate(size_t index) {
	return index < N_RATES ? dp_rates[index].rate_mbps : 0;
}

const struct dp_rates *dp_rates_standard(void) {
	static const struct dp_rates standard = {
		.mbps = { DP_RATE_RBR, DP_RATE_HBR, DP_RATE_HBR2, DP_RATE_HBR3,
			DP_RATE_UHBR10, DP_RATE_UHBR13_5, DP_RATE_UHBR20 },
		.len = N_RATES,
	};
	return &standard;
}

void dp_rates_up_to(struct dp_rates *rates, uint32_t max_mbps) {
	rates->len = 0;
	for (size_t i = 0; i < N_RATES; i++) {
		if (max_mbps == 0 || dp_rates[i].rate_mbps <= max_mbps) {
			rates->mbps[rates->len++] = dp_rates[i].rate_mbps;
		}
	}
}

uint32_t dp_rates_max(const struct dp_rates *rates) {
	return rates->len > 0 ? rates->mbps[rates->len - 1] : 0;
}

bool dp_rate_is_uhbr(uint32_t rate_mbps) {
	return rate_mbps >= DP_RATE_UHBR10;
}

bool dp_rate_parse(const char *name, uint32_t *rate_mbps) {
	for (size_t i = 0; i < N_RATES; i++) {
		if (strcasecmp(name, dp_rates[i].name) == 0) {
			*rate_mbps = dp_rates[i].rate_mbps;
			return true;
		}
	}
	return false;
}

const char *dp_rate_name(uint32_t rate_mbps) {
	for (size_t i = 0; i < N_RATES; i++) {
		if (dp_rates[i].rate_mbps == rate_mbps) {
			return dp_rates[i].name;
		}
	}
	return "?";
}

const char *dp_link_format(const struct lg_link_params *link, char *buf,
		size_t size) {
	char rate[24] = "any rate";
	const char *name = dp_rate_name(link->rate_mbps);
	if (link->rate_mbps != 0 && strcmp(name, "?") == 0) {
		snprintf(rate, sizeof(rate), "%" PRIu32 " Mbit/s", link->rate_mbps);
	} else if (link->rate_mbps != 0) {
		size_t i = 0;
		for (; name[i] != '\0' && i + 1 < sizeof(rate); i++) {
			rate[i] = (char)toupper((unsigned char)name[i]);
		}
		rate[i] = '\0';
	}
	if (link->lanes == 0) {
		snprintf(buf, size, "%s", rate);
	} else {
		snprintf(buf, size, "%s x%" PRIu32, rate, link->lanes);
	}
	return buf;
}
