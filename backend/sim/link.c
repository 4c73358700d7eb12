#include <inttypes.h>
#include <linkguard/log.h>
#include <sim/dp.h>
#include <sim/link.h>

static uint32_t min_u32(uint32_t a, uint32_t b) {
	return a < b ? a : b;
}

static uint32_t max_rate(const struct sim_link *link) {
	return min_u32(link->source.rate_mbps, link->sink->max_rate_mbps);
}

void sim_link_plug(struct sim_link *link, const struct sim_sink *sink) {
	link->sink = sink;
	// A long hotplug pulse resets the kernel's link parameters.
	link->max = (struct lg_link_params){
		.lanes = min_u32(link->source.lanes, sink->max_lanes),
		.rate_mbps = max_rate(link),
	};
	link->status = LG_LINK_STATUS_GOOD;
	link->trained = false;
	link->retrain_disabled = false;
}

void sim_link_unplug(struct sim_link *link) {
	link->sink = NULL;
	link->trained = false;
	link->status = LG_LINK_STATUS_GOOD;
}

static bool fits_min_bpp(const struct sim_link *link, const struct lg_mode *mode) {
	return dp_mode_fits(mode, DP_MIN_BPP, &link->max);
}

bool sim_link_probe(const struct sim_link *link, struct lg_mode_list *modes) {
	lg_mode_list_clear(modes);
	if (link->sink == NULL) {
		return true;
	}
	for (size_t i = 0; i < link->sink->n_modes; i++) {
		const struct lg_mode *mode = &link->sink->modes[i];
		if (fits_min_bpp(link, mode) && !lg_mode_list_append(modes, mode)) {
			return false;
		}
	}
	return true;
}

bool sim_link_mode_valid(const struct sim_link *link, const struct lg_mode *mode) {
	if (link->sink == NULL || link->reject_all || !fits_min_bpp(link, mode)) {
		return false;
	}
	for (size_t i = 0; i < link->sink->n_modes; i++) {
		if (lg_mode_equal(&link->sink->modes[i], mode)) {
			return true;
		}
	}
	return false;
}

static bool cable_holds(const struct sim_link *link) {
	const struct lg_link_params *cable = &link->cable;
	return (cable->rate_mbps == 0 || link->max.rate_mbps <= cable->rate_mbps) &&
		(cable->lanes == 0 || link->max.lanes <= cable->lanes);
}

static void log_link(const struct sim_link *link, const char *what) {
	lg_log(LG_INFO, "sim: %s: %s %s x%" PRIu32, link->name, what,
		dp_rate_name(link->max.rate_mbps), link->max.lanes);
}

/*
 * i915 retries a failed training once at the same parameters; only the
 * second consecutive failure lowers them, prunes modes on the next probe,
 * sets link-status BAD and sends the hotplug uevent.
 */
enum sim_train_result sim_link_train(struct sim_link *link,
		const struct lg_mode *mode) {
	if (link->sink == NULL || link->retrain_disabled) {
		return SIM_SILENT;
	}
	link->mode = *mode;
	if (!sim_link_mode_valid(link, mode)) {
		link->trained = false;
		link->status = LG_LINK_STATUS_BAD;
		lg_log(LG_INFO, "sim: %s: mode does not fit the link", link->name);
		return SIM_REJECTED;
	}
	uint32_t bpp = dp_max_bpp(mode, link->sink->max_bpc, &link->max);
	if (cable_holds(link)) {
		link->trained = true;
		link->status = LG_LINK_STATUS_GOOD;
		lg_log(LG_INFO, "sim: %s: link trained at %s x%" PRIu32 ", %" PRIu32 " bpp",
			link->name, dp_rate_name(link->max.rate_mbps), link->max.lanes, bpp);
		return SIM_TRAINED;
	}

	log_link(link, "training failed twice at");
	link->trained = false;
	if (!dp_link_lower(&link->max, max_rate(link))) {
		link->retrain_disabled = true;
		lg_log(LG_INFO, "sim: %s: nothing left to lower: retrain disabled, "
			"link dark, no uevent", link->name);
		return SIM_SILENT;
	}
	link->status = LG_LINK_STATUS_BAD;
	size_t left = 0;
	for (size_t i = 0; i < link->sink->n_modes; i++) {
		left += fits_min_bpp(link, &link->sink->modes[i]);
	}
	lg_log(LG_INFO, "sim: %s: lowered link to %s x%" PRIu32 "; %zu of %zu modes "
		"remain; link-status BAD", link->name, dp_rate_name(link->max.rate_mbps),
		link->max.lanes, left, link->sink->n_modes);
	return SIM_LOWERED;
}

enum sim_train_result sim_link_set_cable(struct sim_link *link,
		const struct lg_link_params *cable) {
	link->cable = *cable;
	if (!link->trained || cable_holds(link)) {
		return SIM_TRAINED;
	}
	// The sink loses lock; the kernel retrains on the short pulse.
	log_link(link, "cable no longer holds");
	return sim_link_train(link, &link->mode);
}

bool sim_link_glitch(struct sim_link *link) {
	if (!link->trained) {
		return false;
	}
	link->status = LG_LINK_STATUS_BAD;
	lg_log(LG_INFO, "sim: %s: link glitch; link-status BAD", link->name);
	return true;
}
