#include <dp/dp.h>
#include <dp/i915.h>

/*
 * i915 steps the pipe bpp by 2 bpc of RGB (intel_dp_compute_link_config_wide()
 * and intel_dp_mst_find_vcpi_slots_for_bpp() both step by 2 * 3).
 */
#define BPP_STEP 6
/* intel_dp_mst_compute_config_limits(): MST streams stay at 8 bpc or less. */
#define MST_MAX_BPP 24

/*
 * The first bpp tried: the sink's max_bpc * 3, at most cap, rounded down
 * to a step as intel_dp_compute_config_link_bpp_limits() does.
 */
static uint32_t top_bpp(uint32_t max_bpc, uint32_t cap) {
	uint32_t bpp = max_bpc * 3 < cap ? max_bpc * 3 : cap;
	return bpp - bpp % BPP_STEP;
}

/* The fewest of 1, 2, 4 lanes, up to max_lanes, that carry mode; 0 if none. */
static uint32_t fewest_lanes(const struct lg_mode *mode, uint32_t bpp,
		uint32_t rate_mbps, uint32_t max_lanes) {
	for (uint32_t lanes = 1; lanes <= max_lanes; lanes *= 2) {
		const struct lg_link_params link = { .lanes = lanes, .rate_mbps = rate_mbps };
		if (dp_mode_fits(mode, bpp, &link)) {
			return lanes;
		}
	}
	return 0;
}

bool i915_choose_sst(const struct lg_mode *mode, uint32_t max_bpc,
		const struct dp_rates *rates, const struct lg_link_params *max,
		struct lg_link_params *params, uint32_t *bpp) {
	uint32_t max_rate = max->rate_mbps < I915_SST_MAX_RATE ?
		max->rate_mbps : I915_SST_MAX_RATE;
	// Highest bpp first, then the slowest rate, then the fewest lanes.
	for (uint32_t try_bpp = top_bpp(max_bpc, UINT32_MAX); try_bpp >= DP_MIN_BPP;
			try_bpp -= BPP_STEP) {
		for (size_t i = 0; i < rates->len && rates->mbps[i] <= max_rate; i++) {
			uint32_t lanes = fewest_lanes(mode, try_bpp, rates->mbps[i], max->lanes);
			if (lanes != 0) {
				*params = (struct lg_link_params){
					.lanes = lanes,
					.rate_mbps = rates->mbps[i],
				};
				*bpp = try_bpp;
				return true;
			}
		}
	}
	return false;
}

bool i915_choose_mst(const struct lg_mode *mode, uint32_t max_bpc,
		const struct lg_link_params *max, struct lg_link_params *params,
		uint32_t *bpp) {
	for (uint32_t try_bpp = top_bpp(max_bpc, MST_MAX_BPP); try_bpp >= DP_MIN_BPP;
			try_bpp -= BPP_STEP) {
		if (dp_mode_fits(mode, try_bpp, max)) {
			*params = *max;
			*bpp = try_bpp;
			return true;
		}
	}
	return false;
}

static bool rate_index(uint32_t rate_mbps, size_t *index) {
	for (size_t i = 0; i < dp_rate_count(); i++) {
		if (dp_rate(i) == rate_mbps) {
			*index = i;
			return true;
		}
	}
	return false;
}

bool i915_reduce_sst(const struct lg_link_params *failed,
		uint32_t max_common_rate, struct lg_link_params *max) {
	struct lg_link_params next = *failed;
	size_t i;
	/*
	 * reduce_link_rate(): the next lower rate at the same lanes. 6.12 still
	 * refuses to step from UHBR into 8b/10b there ("TODO: Make switching
	 * from UHBR to non-UHBR rates work").
	 */
	if (rate_index(failed->rate_mbps, &i) && i > 0 &&
			dp_rate_is_uhbr(dp_rate(i - 1)) == dp_rate_is_uhbr(failed->rate_mbps)) {
		next.rate_mbps = dp_rate(i - 1);
		*max = next;
		return true;
	}
	// reduce_lane_count(): half the lanes, back at intel_dp_max_common_rate().
	if (failed->lanes <= 1) {
		return false;
	}
	next.lanes = failed->lanes / 2;
	next.rate_mbps = max_common_rate;
	*max = next;
	return true;
}

/* link_config_cmp_by_bw(): by payload, equal payloads by rate. */
static bool below_in_bw_order(const struct lg_link_params *a,
		const struct lg_link_params *b) {
	uint64_t payload_a = dp_link_payload_kbps(a), payload_b = dp_link_payload_kbps(b);
	if (payload_a != payload_b) {
		return payload_a < payload_b;
	}
	return a->rate_mbps < b->rate_mbps;
}

bool i915_reduce_mst(const struct lg_link_params *failed,
		const struct lg_link_params *common, struct lg_link_params *max) {
	/*
	 * intel_dp_link_config_init() sorts every common (rate, lanes) pair by
	 * bandwidth; the fallback takes the entry just below the failed one.
	 * Since 6.12 (the MST "LT fallback between UHBR/non-UHBR link rates")
	 * nothing stops it at the UHBR boundary.
	 */
	struct lg_link_params best = {0};
	bool found = false;
	for (size_t i = 0; i < dp_rate_count() && dp_rate(i) <= common->rate_mbps; i++) {
		for (uint32_t lanes = 1; lanes <= common->lanes; lanes *= 2) {
			const struct lg_link_params config = {
				.lanes = lanes,
				.rate_mbps = dp_rate(i),
			};
			if (below_in_bw_order(&config, failed) &&
					(!found || below_in_bw_order(&best, &config))) {
				best = config;
				found = true;
			}
		}
	}
	if (found) {
		*max = best;
	}
	return found;
}
