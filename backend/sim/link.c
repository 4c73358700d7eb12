#include <inttypes.h>
#include <stdio.h>
#include <linkguard/log.h>
#include <dp/dp.h>
#include <dp/i915.h>
#include <sim/link.h>

/* A zero limit means "no limit". */
static uint32_t limit(uint32_t value, uint32_t max) {
	return max != 0 && max < value ? max : value;
}

/* What both ends support: i915's max common rate and lane count. */
static struct lg_link_params common_max(const struct sim_link *link) {
	return (struct lg_link_params){
		.lanes = limit(link->sink->max_lanes, link->source.lanes),
		.rate_mbps = limit(link->sink->max_rate_mbps, link->source.rate_mbps),
	};
}

void sim_link_plug(struct sim_link *link, const struct sim_sink *sink) {
	link->sink = sink;
	// A long HPD pulse: intel_dp_reset_link_params() back to the common max.
	link->max = common_max(link);
	link->params = (struct lg_link_params){0};
	link->bpp = 0;
	link->status = LG_LINK_STATUS_GOOD;
	link->lit = false;
	link->trained = false;
	link->retry_pending = false;
	link->failures = 0;
	link->retrain_disabled = false;
	sim_link_heal_sink(link);
}

void sim_link_unplug(struct sim_link *link) {
	link->sink = NULL;
	link->params = (struct lg_link_params){0};
	link->bpp = 0;
	link->status = LG_LINK_STATUS_GOOD;
	link->lit = false;
	link->trained = false;
	link->retry_pending = false;
	link->failures = 0;
}

bool sim_link_probe(const struct sim_link *link, struct lg_mode_list *modes) {
	lg_mode_list_clear(modes);
	if (link->sink == NULL) {
		return true;
	}
	for (size_t i = 0; i < link->sink->n_modes; i++) {
		const struct lg_mode *mode = &link->sink->modes[i];
		if (dp_mode_valid(mode, &link->max) && !lg_mode_list_append(modes, mode)) {
			return false;
		}
	}
	return true;
}

size_t sim_link_count_modes(const struct sim_link *link) {
	size_t count = 0;
	for (size_t i = 0; link->sink != NULL && i < link->sink->n_modes; i++) {
		count += dp_mode_valid(&link->sink->modes[i], &link->max);
	}
	return count;
}

/* i915's compute config for mode within max (intel_dp_compute_link_config()). */
static bool choose(const struct sim_link *link, const struct lg_mode *mode,
		struct lg_link_params *params, uint32_t *bpp) {
	if (link->mst) {
		return i915_choose_mst(mode, link->sink->max_bpc, &link->max, params, bpp);
	}
	return i915_choose_sst(mode, link->sink->max_bpc, dp_rates_standard(),
		&link->max, params, bpp);
}

static bool sink_has_mode(const struct sim_sink *sink, const struct lg_mode *mode) {
	for (size_t i = 0; i < sink->n_modes; i++) {
		if (lg_mode_equal(&sink->modes[i], mode)) {
			return true;
		}
	}
	return false;
}

/*
 * The kernel's atomic check: one of the sink's timings for which i915 finds
 * a link. A listed mode fits max at 18 bpp, so it finds one, except on SST
 * above HBR3, where 6.12 lists modes it cannot set without DSC.
 */
static bool atomic_check(const struct sim_link *link, const struct lg_mode *mode,
		struct lg_link_params *params, uint32_t *bpp) {
	return link->sink != NULL && !link->reject_all &&
		sink_has_mode(link->sink, mode) && choose(link, mode, params, bpp);
}

bool sim_link_choose(const struct sim_link *link, const struct lg_mode *mode,
		struct lg_link_params *params) {
	uint32_t bpp;
	return atomic_check(link, mode, params, &bpp);
}

bool sim_link_mode_valid(const struct sim_link *link, const struct lg_mode *mode) {
	struct lg_link_params params;
	uint32_t bpp;
	return atomic_check(link, mode, &params, &bpp);
}

/* Whether the cable trains the parameters of the last modeset. */
static bool cable_holds(const struct sim_link *link) {
	const struct lg_link_params *cable = &link->cable;
	return limit(link->params.rate_mbps, cable->rate_mbps) == link->params.rate_mbps &&
		limit(link->params.lanes, cable->lanes) == link->params.lanes;
}

/*
 * i915 has nothing below the failed parameters: it sets retrain_disabled
 * and says nothing more. No BAD, no uevent, a dark screen until the sink is
 * replugged.
 */
static enum sim_train_result disable_retrain(struct sim_link *link) {
	char params[32];
	link->retrain_disabled = true;
	lg_log(LG_INFO, "sim: %s: nothing left to lower from %s: retrain "
		"disabled, link dark, no link-status BAD, no uevent", link->name,
		dp_link_format(&link->params, params, sizeof(params)));
	return SIM_SILENT;
}

/*
 * The second consecutive failure: i915 lowers its maximum from the
 * parameters that failed (intel_dp_get_link_train_fallback_values()), sets
 * link-status BAD and queues the hotplug uevent. The modes that no longer
 * fit at the minimum bpp disappear on the next forced probe, not before.
 */
static enum sim_train_result lower_link(struct sim_link *link) {
	char from[32], to[32];
	const struct lg_link_params common = common_max(link);
	link->failures = 0;
	bool lowered = link->mst ?
		i915_reduce_mst(&link->params, &common, &link->max) :
		i915_reduce_sst(&link->params, common.rate_mbps, &link->max);
	if (!lowered) {
		return disable_retrain(link);
	}
	link->status = LG_LINK_STATUS_BAD;
	size_t left = sim_link_count_modes(link);
	lg_log(LG_INFO, "sim: %s: link training failed again at %s; lowered link "
		"to %s; %zu of %zu modes remain; link-status BAD", link->name,
		dp_link_format(&link->params, from, sizeof(from)),
		dp_link_format(&link->max, to, sizeof(to)), left, link->sink->n_modes);
	if (left == 0) {
		lg_log(LG_INFO, "sim: %s: no mode fits %s: dark until replug",
			link->name, to);
	}
	return SIM_LOWERED;
}

/* One training of link->mode at link->params, as the last modeset set them. */
static enum sim_train_result attempt(struct sim_link *link) {
	char params[32], cable[32];
	dp_link_format(&link->params, params, sizeof(params));
	if (cable_holds(link)) {
		link->trained = true;
		link->lock_lost = false;
		link->failures = 0;
		link->status = LG_LINK_STATUS_GOOD;
		lg_log(LG_INFO, "sim: %s: link trained at %s, %" PRIu32 " bpp",
			link->name, params, link->bpp);
		return SIM_TRAINED;
	}
	link->trained = false;
	if (++link->failures < 2) {
		// i915 queues its link check work, which retrains as it was.
		link->retry_pending = true;
		lg_log(LG_INFO, "sim: %s: link training failed at %s (cable holds %s), "
			"retrying", link->name, params,
			dp_link_format(&link->cable, cable, sizeof(cable)));
		return SIM_RETRY;
	}
	return lower_link(link);
}

bool sim_link_needs_modeset(const struct sim_link *link, const struct lg_mode *mode) {
	return !link->lit || link->status != LG_LINK_STATUS_GOOD ||
		!lg_mode_equal(&link->mode, mode);
}

enum sim_train_result sim_link_train(struct sim_link *link,
		const struct lg_mode *mode) {
	if (link->sink == NULL) {
		return SIM_UNCHANGED;
	}
	if (link->retrain_disabled) {
		lg_log(LG_INFO, "sim: %s: retrain disabled: the link stays dark",
			link->name);
		return SIM_SILENT;
	}
	if (!sim_link_needs_modeset(link, mode)) {
		char buf[64];
		lg_log(LG_INFO, "sim: %s: %s committed as it runs, link-status GOOD: "
			"no modeset, nothing retrains", link->name,
			lg_mode_format(mode, buf, sizeof(buf)));
		return SIM_UNCHANGED;
	}
	link->lit = true;
	link->mode = *mode;
	link->retry_pending = false;
	// The commit carries link-status GOOD: user space can only write GOOD.
	link->status = LG_LINK_STATUS_GOOD;
	struct lg_link_params params;
	uint32_t bpp;
	if (!atomic_check(link, mode, &params, &bpp)) {
		char buf[64];
		link->trained = false;
		link->status = LG_LINK_STATUS_BAD;
		lg_log(LG_INFO, "sim: %s: %s does not fit the link; link-status BAD",
			link->name, lg_mode_format(mode, buf, sizeof(buf)));
		return SIM_REJECTED;
	}
	link->params = params;
	link->bpp = bpp;
	return attempt(link);
}

void sim_link_off(struct sim_link *link) {
	if (!link->lit) {
		return;
	}
	link->lit = false;
	link->trained = false;
	link->retry_pending = false;
	lg_log(LG_INFO, "sim: %s: the CRTC is off; the link stops", link->name);
}

enum sim_train_result sim_link_retry(struct sim_link *link) {
	if (!link->retry_pending || link->sink == NULL || link->retrain_disabled) {
		return SIM_UNCHANGED;
	}
	link->retry_pending = false;
	return attempt(link);
}

enum sim_train_result sim_link_set_cable(struct sim_link *link,
		const struct lg_link_params *cable) {
	link->cable = *cable;
	if (link->sink == NULL || !link->trained || cable_holds(link)) {
		return SIM_UNCHANGED;
	}
	// The sink loses lock: a short HPD pulse, and the kernel retrains.
	char params[32];
	lg_log(LG_INFO, "sim: %s: the link at %s lost lock", link->name,
		dp_link_format(&link->params, params, sizeof(params)));
	return attempt(link);
}

bool sim_link_glitch(struct sim_link *link) {
	if (link->sink == NULL || !link->trained) {
		return false;
	}
	link->status = LG_LINK_STATUS_BAD;
	lg_log(LG_INFO, "sim: %s: link glitch; link-status BAD", link->name);
	return true;
}

void sim_link_lose_lock(struct sim_link *link, uint32_t above_mbps) {
	char rate[32];
	if (above_mbps == 0) {
		link->lock_lost = true;
		lg_log(LG_INFO, "sim: %s: the sink lost lock; link-status stays GOOD, "
			"no uevent", link->name);
		return;
	}
	link->lock_max_mbps = above_mbps;
	dp_link_format(&(struct lg_link_params){ .lanes = 0, .rate_mbps = above_mbps },
		rate, sizeof(rate));
	lg_log(LG_INFO, "sim: %s: the sink holds lock up to %s only; link-status "
		"stays GOOD, no uevent", link->name, rate);
}

bool sim_link_sink_locked(const struct sim_link *link) {
	return link->sink != NULL && link->trained && !link->lock_lost &&
		(link->lock_max_mbps == 0 || link->params.rate_mbps <= link->lock_max_mbps);
}

void sim_link_set_errors(struct sim_link *link, uint32_t per_min) {
	link->errors_per_min = per_min;
	link->errors_min_mbps = link->params.rate_mbps;
	lg_log(LG_INFO, "sim: %s: the cable makes %" PRIu32 " symbol errors per "
		"lane and minute at %" PRIu32 " Mbit/s and above", link->name, per_min,
		link->errors_min_mbps);
}

uint32_t sim_link_error_rate(const struct sim_link *link) {
	return link->trained && link->params.rate_mbps >= link->errors_min_mbps ?
		link->errors_per_min : 0;
}

void sim_link_heal_sink(struct sim_link *link) {
	link->lock_max_mbps = 0;
	link->lock_lost = false;
	link->errors_per_min = 0;
	link->errors_min_mbps = 0;
}

/* LINK_BW_SET: 0.27 Gbit/s units for 8b/10b, the UHBR codes for 128b/132b. */
static uint8_t bw_code(uint32_t rate_mbps) {
	switch (rate_mbps) {
	case 10000:
		return 0x01;
	case 13500:
		return 0x04;
	case 20000:
		return 0x02;
	}
	return (uint8_t)(rate_mbps / 270);
}

void sim_link_dpcd(const struct sim_link *link, uint16_t errors,
		struct dpcd_regs *regs) {
	*regs = (struct dpcd_regs){0};
	const struct lg_link_params *params = &link->params;
	if (link->sink == NULL || params->lanes == 0) {
		return; // nothing trained: LANE_COUNT_SET 0
	}
	bool uhbr = params->rate_mbps >= 10000;
	regs->link[0] = bw_code(params->rate_mbps);
	regs->link[DPCD_LANE_COUNT_SET] = (uint8_t)(params->lanes | 0x80);
	regs->link[DPCD_CHANNEL_CODING_SET] = uhbr ? DPCD_CODING_128B132B :
		DPCD_CODING_8B10B;
	regs->status[0] = 0x41; // CP_READY, one sink
	bool locked = sim_link_sink_locked(link);
	for (uint32_t lane = 0; lane < params->lanes && lane < 4; lane++) {
		// Lock lost: clock recovery holds, equalization and symbol lock not.
		uint8_t nibble = locked ? DPCD_LANE_CR_DONE | DPCD_LANE_CHANNEL_EQ_DONE |
			DPCD_LANE_SYMBOL_LOCKED : DPCD_LANE_CR_DONE;
		regs->status[DPCD_LANE0_1_STATUS + lane / 2] |=
			(uint8_t)(nibble << (4 * (lane % 2)));
		uint16_t count = DPCD_ERROR_COUNT_VALID | (errors & DPCD_ERROR_COUNT_MASK);
		regs->errors[2 * lane] = count & 0xff;
		regs->errors[2 * lane + 1] = count >> 8;
	}
	regs->status[DPCD_LANE_ALIGN_STATUS_UPDATED] = locked ?
		DPCD_INTERLANE_ALIGN_DONE : 0;
	regs->status[DPCD_SINK_STATUS] = locked ? DPCD_RECEIVE_PORT_0_STATUS : 0;
}
