#ifndef DP_DP_H
#define DP_DP_H

/*
 * DisplayPort link bandwidth, in integers. Per-lane rates in Mbit/s:
 * RBR 1620, HBR 2700, HBR2 5400, HBR3 8100 with 8b/10b channel coding (80 %
 * payload); UHBR10, UHBR13.5, UHBR20 with 128b/132b, 96.71 % payload as the
 * kernel counts it (drm_dp_bw_channel_coding_efficiency(): 128/132 less the
 * link and PHY control symbols and FEC). A mode fits a link when
 * clock_khz * bpp <= lanes * rate * efficiency.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linkguard/link.h>
#include <linkguard/mode.h>

/* i915 validates (prunes) modes at its minimum output bpp: 6 bpc RGB. */
#define DP_MIN_BPP 18

#define DP_RATE_RBR 1620
#define DP_RATE_HBR 2700
#define DP_RATE_HBR2 5400
#define DP_RATE_HBR3 8100
#define DP_RATE_UHBR10 10000
#define DP_RATE_UHBR13_5 13500
#define DP_RATE_UHBR20 20000

/* Payload of a link in kbit/s, after 8b/10b or 128b/132b channel coding. */
uint64_t dp_link_payload_kbps(const struct lg_link_params *link);
/* Whether mode fits the link at bpp bits per pixel. */
bool dp_mode_fits(const struct lg_mode *mode, uint32_t bpp,
	const struct lg_link_params *link);
/* Whether the kernel lists mode on this link: it fits at DP_MIN_BPP. */
bool dp_mode_valid(const struct lg_mode *mode, const struct lg_link_params *link);
/* The standard rates, ascending: dp_rate(0) is RBR; 0 past the end. */
size_t dp_rate_count(void);
uint32_t dp_rate(size_t index);

/*
 * eDP 1.4 sinks list up to 8 rates of their own (DPCD 0x010-0x01f), the
 * standard ones are 7.
 */
#define DP_MAX_RATES 8

/*
 * The link rates a source and sink both support (i915's common rates),
 * ascending, in Mbit/s per lane.
 */
struct dp_rates {
	uint32_t mbps[DP_MAX_RATES];
	size_t len;
};

/* Every standard rate, RBR to UHBR20. */
const struct dp_rates *dp_rates_standard(void);
/* The standard rates up to max_mbps (0: all of them). */
void dp_rates_up_to(struct dp_rates *rates, uint32_t max_mbps);
/* The highest of rates, 0 when there is none. */
uint32_t dp_rates_max(const struct dp_rates *rates);
/* UHBR10 and up: DP 2.x rates with 128b/132b channel coding. */
bool dp_rate_is_uhbr(uint32_t rate_mbps);

/* "rbr", "hbr", "hbr2", "hbr3", "uhbr10", "uhbr13.5", "uhbr20" (any case). */
bool dp_rate_parse(const char *name, uint32_t *rate_mbps);
/* The lower-case name dp_rate_parse() takes, or "?". */
const char *dp_rate_name(uint32_t rate_mbps);
/*
 * Formats a link for logs: "HBR2 x4", an eDP rate of its own in Mbit/s
 * ("2160 Mbit/s x2"); a zero lane count or rate (a cable's "no limit") is
 * left out or shown as "any rate". Returns buf.
 */
const char *dp_link_format(const struct lg_link_params *link, char *buf,
	size_t size);

#endif
