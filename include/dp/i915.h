#ifndef DP_I915_H
#define DP_I915_H

/*
 * Which link i915 (Linux 6.12) trains for a mode, and how it lowers its
 * maximum after a link has failed to train twice. Pure functions over the
 * bandwidth math of dp.h; link.c keeps the state.
 *
 * i915 works on its "common rates", those both the source and the sink
 * support: the sim's sources and sinks support every standard rate up to
 * their maximum, so the common rates are the standard rates up to
 * min(source, sink); a real eDP panel may list rates of its own. DSC is
 * not modelled.
 */

#include <stdbool.h>
#include <stdint.h>
#include <linkguard/link.h>
#include <linkguard/mode.h>
#include <dp/dp.h>

/*
 * 6.12's intel_dp_compute_config_limits() caps every SST link at HBR3
 * ("128b/132b SST support missing"): SST never trains a UHBR rate, though
 * the modes it lists are checked against the uncapped maximum.
 */
#define I915_SST_MAX_RATE DP_RATE_HBR3

/*
 * An SST modeset (intel_dp_compute_link_config_wide()): for each bpp from
 * max_bpc * 3 (rounded down to a multiple of 6) down to 18 in steps of 6,
 * the lowest of rates, then the fewest lanes, within max (and the HBR3 cap)
 * whose payload carries the mode. False when nothing does: without DSC the
 * kernel's atomic check fails.
 */
bool i915_choose_sst(const struct lg_mode *mode, uint32_t max_bpc,
	const struct dp_rates *rates, const struct lg_link_params *max,
	struct lg_link_params *params, uint32_t *bpp);
/*
 * An MST modeset: always the maximum link (intel_dp_mst_compute_config_limits()
 * sets min = max), at the highest bpp from min(max_bpc * 3, 24) down to 18
 * in steps of 6 that fits. MTP and FEC overheads are not modelled.
 */
bool i915_choose_mst(const struct lg_mode *mode, uint32_t max_bpc,
	const struct lg_link_params *max, struct lg_link_params *params,
	uint32_t *bpp);

/*
 * The new maximum after the link failed twice at failed (the crtc_state's
 * port_clock and lane_count), SST (reduce_link_params_in_rate_lane_order()):
 * the next lower common rate at the same lanes, unless that crosses between
 * UHBR and 8b/10b; else max_common_rate with half the lanes. False at one
 * lane: nothing is left to lower.
 */
bool i915_reduce_sst(const struct lg_link_params *failed,
	uint32_t max_common_rate, struct lg_link_params *max);
/*
 * The same for MST (reduce_link_params_in_bw_order()): of every common rate
 * with 1, 2 or 4 lanes (up to common->lanes), ordered by payload and then by
 * rate, the one just below failed, across UHBR and 8b/10b alike. False when
 * failed is the lowest.
 */
bool i915_reduce_mst(const struct lg_link_params *failed,
	const struct lg_link_params *common, struct lg_link_params *max);

#endif
