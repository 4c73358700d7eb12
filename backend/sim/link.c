#include <inttypes.h>
#include <stdio.h>
#include <linkguard/log.h>
#include <sim/dp.h>
#include <sim/link.h>

/* A zero limit means "no limit". */
static uint32_t limit(uint32_t value, uint32_t max) {
	return max != 0 && max < value ? max : value;
}

static uint32_t max_rate(const struct sim_link *link) {
	return limit(link->sink->max_rate_mbps, link->source.rate_mbps);
}

void sim_link_plug(struct sim_link *link, const struct sim_sink *sink) {
	link->sink = sink;
	// A long HPD pulse: the kernel resets its link parameters.
	link->max = (struct lg_link_params){
		.lanes = limit(sink->max_lanes, link->source.lanes),
		.rate_mbps = max_rate(link),
	};
	link->status = LG_LINK_STATUS_GOOD;
	link->trained = false;
	link->retry_pending = false;
	link->failures = 0;
	link->retrain_disabled = false;
}

void sim_link_unplug(struct sim_link *link) {
	link->sink = NULL;
	link->status = LG_LINK_STATUS_GOOD;
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

bool sim_link_mode_valid(const struct sim_link *link, const struct lg_mode *mode) {
	if (link->sink == NULL || link->reject_all ||
			!dp_mode_valid(mode, &link->max)) {
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
	return limit(link->max.rate_mbps, cable->rate_mbps) == link->max.rate_mbps &&
		limit(link->max.lanes, cable->lanes) == link->max.lanes;
}

/*
 * i915 has run out of fallbacks (RBR x1 failed twice): it sets
 * retrain_disabled and says nothing more. No BAD, no uevent, a dark screen
 * until the sink is replugged.
 */
static enum sim_train_result disable_retrain(struct sim_link *link) {
	link->retrain_disabled = true;
	lg_log(LG_INFO, "sim: %s: nothing left to lower below RBR x1: retrain "
		"disabled, link dark, no link-status BAD, no uevent", link->name);
	return SIM_SILENT;
}

/*
 * The second consecutive failure: i915 lowers the link (lower rate, then
 * half the lanes), sets link-status BAD and queues the hotplug uevent. The
 * modes that no longer fit at the minimum bpp disappear on the next forced
 * probe, not before.
 */
static enum sim_train_result lower_link(struct sim_link *link) {
	char from[32], to[32];
	dp_link_format(&link->max, from, sizeof(from));
	link->failures = 0;
	if (!dp_link_lower(&link->max, max_rate(link))) {
		return disable_retrain(link);
	}
	link->status = LG_LINK_STATUS_BAD;
	size_t left = sim_link_count_modes(link);
	lg_log(LG_INFO, "sim: %s: link training failed again at %s; lowered link "
		"to %s; %zu of %zu modes remain; link-status BAD", link->name, from,
		dp_link_format(&link->max, to, sizeof(to)), left, link->sink->n_modes);
	if (left == 0) {
		lg_log(LG_INFO, "sim: %s: no mode fits %s: dark until replug",
			link->name, to);
	}
	return SIM_LOWERED;
}

/* One training of link->mode at the current maximum parameters. */
static enum sim_train_result attempt(struct sim_link *link) {
	char params[32], cable[32];
	dp_link_format(&link->max, params, sizeof(params));
	if (cable_holds(link)) {
		link->trained = true;
		link->failures = 0;
		link->status = LG_LINK_STATUS_GOOD;
		lg_log(LG_INFO, "sim: %s: link trained at %s, %" PRIu32 " bpp",
			link->name, params,
			dp_max_bpp(&link->mode, link->sink->max_bpc, &link->max));
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
	link->mode = *mode;
	link->retry_pending = false;
	// The commit carries link-status GOOD: user space can only write GOOD.
	link->status = LG_LINK_STATUS_GOOD;
	if (!sim_link_mode_valid(link, mode)) {
		char buf[64];
		link->trained = false;
		link->status = LG_LINK_STATUS_BAD;
		lg_log(LG_INFO, "sim: %s: %s does not fit the link; link-status BAD",
			link->name, lg_mode_format(mode, buf, sizeof(buf)));
		return SIM_REJECTED;
	}
	return attempt(link);
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
		dp_link_format(&link->max, params, sizeof(params)));
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
