#include <stdlib.h>
#include "oracle.h"

double oracle_link_kBps(const struct lg_link_params *link) {
	// Mbit/s per lane -> kB/s: x 1000 / 8.
	double raw = (double)link->rate_mbps * link->lanes * 1000.0 / 8.0;
	return raw * (link->rate_mbps >= 10000 ? 0.9671 : 0.8);
}

bool oracle_fits(const struct lg_mode *mode, const struct lg_link_params *link) {
	return (double)mode->clock_khz * 18.0 / 8.0 <= oracle_link_kBps(link);
}

bool oracle_link_below(const struct lg_link_params *link,
		const struct lg_link_params *ceiling) {
	if (ceiling->lanes == 0) {
		return true;
	}
	return link->lanes != 0 && (oracle_link_kBps(link) < oracle_link_kBps(ceiling) ||
		link->rate_mbps < ceiling->rate_mbps);
}

void oracle_keep_lowest(struct lg_link_params *lowest,
		const struct lg_link_params *link) {
	if (link->lanes != 0 && (lowest->lanes == 0 ||
			oracle_link_kBps(link) < oracle_link_kBps(lowest))) {
		*lowest = *link;
	}
}

bool oracle_train_link(const struct lg_mode *mode, uint32_t max_bpc,
		const struct lg_link_params *max, struct lg_link_params *link) {
	static const uint32_t rates[] = { 1620, 2700, 5400, 8100 };
	static const uint32_t lanes[] = { 1, 2, 4 };
	for (uint32_t bpp = max_bpc * 3 / 6 * 6; bpp >= 18; bpp -= 6) {
		for (size_t r = 0; r < sizeof(rates) / sizeof(rates[0]); r++) {
			for (size_t l = 0; l < sizeof(lanes) / sizeof(lanes[0]); l++) {
				*link = (struct lg_link_params){ lanes[l], rates[r] };
				bool within = rates[r] <= max->rate_mbps && lanes[l] <= max->lanes;
				if (within && (double)mode->clock_khz * bpp / 8.0 <=
						oracle_link_kBps(link)) {
					return true;
				}
			}
		}
	}
	return false;
}

bool oracle_trains(const struct lg_mode *mode, const struct lg_link_params *max,
		bool mst) {
	struct lg_link_params link = *max;
	if (!mst && link.rate_mbps > 8100) {
		link.rate_mbps = 8100;
	}
	return oracle_fits(mode, &link);
}

void oracle_list(const struct sim_sink *sink, const struct lg_link_params *max,
		struct lg_mode_list *out) {
	lg_mode_list_clear(out);
	for (size_t i = 0; sink != NULL && i < sink->n_modes; i++) {
		if (oracle_fits(&sink->modes[i], max)) {
			lg_mode_list_append(out, &sink->modes[i]);
		}
	}
}

/* Refresh rates within 0.5 % are one rate: 59.94 Hz keeps 60 Hz. */
static bool refresh_at_most(int32_t refresh, int32_t limit) {
	return refresh * 1000.0 <= limit * 1005.0;
}

static bool aspect_as(const struct lg_mode *mode, const struct lg_mode *requested) {
	double ratio = (double)mode->width * requested->height /
		((double)requested->width * mode->height);
	return ratio >= 0.99 && ratio <= 1.01;
}

/*
 * The spec's order as classes, lower first (linkguard-recovery(7), P4;
 * DESIGN.md section 4): the requested mode; its refresh rate at the
 * largest area (refresh-first only); its size at the highest refresh not
 * above it; the largest area at its aspect ratio; the largest area.
 */
static int spec_class(enum lg_policy policy, const struct lg_mode *mode,
		const struct lg_mode *requested) {
	bool same_size = mode->width == requested->width &&
		mode->height == requested->height;
	if (same_size && mode->refresh_mhz == requested->refresh_mhz &&
			(requested->clock_khz == 0 || mode->clock_khz == requested->clock_khz)) {
		return 0;
	}
	if (policy == LG_POLICY_REFRESH_FIRST &&
			refresh_at_most(mode->refresh_mhz, requested->refresh_mhz) &&
			refresh_at_most(requested->refresh_mhz, mode->refresh_mhz)) {
		return 1;
	}
	if (same_size && refresh_at_most(mode->refresh_mhz, requested->refresh_mhz)) {
		return 2;
	}
	return aspect_as(mode, requested) ? 3 : 4;
}

bool oracle_better(enum lg_policy policy, const struct lg_mode *a,
		const struct lg_mode *b, const struct lg_mode *requested) {
	int ca = spec_class(policy, a, requested), cb = spec_class(policy, b, requested);
	if (ca != cb) {
		return ca < cb;
	}
	double area_a = (double)a->width * a->height, area_b = (double)b->width * b->height;
	double off_a = abs(a->refresh_mhz - requested->refresh_mhz);
	double off_b = abs(b->refresh_mhz - requested->refresh_mhz);
	double keys[][2] = {
		// refresh-first: the aspect ratio kept, then the area
		{ ca == 1 ? aspect_as(a, requested) : 0, ca == 1 ? aspect_as(b, requested) : 0 },
		{ ca == 2 ? a->refresh_mhz : area_a, ca == 2 ? b->refresh_mhz : area_b },
		{ ca >= 3 ? -off_a : 0, ca >= 3 ? -off_b : 0 },
		{ a->preferred, b->preferred },
		{ a->refresh_mhz, b->refresh_mhz },
	};
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		if (keys[i][0] != keys[i][1]) {
			return keys[i][0] > keys[i][1];
		}
	}
	return false;
}

static bool usable(const struct lg_mode *mode) {
	return mode->width > 0 && mode->height > 0 && mode->refresh_mhz > 0 &&
		mode->clock_khz > 0 && !mode->interlaced;
}

bool oracle_pick(enum lg_policy policy, const struct lg_mode *requested,
		const struct lg_mode_list *list, const struct lg_mode_list *known_bad,
		struct lg_mode *pick) {
	if (requested == NULL) {
		return false;
	}
	// Known-bad modes only when nothing else is listed.
	for (int pass = 0; pass < 2; pass++) {
		const struct lg_mode *best = NULL;
		for (size_t i = 0; i < list->len; i++) {
			const struct lg_mode *mode = &list->modes[i];
			bool skipped = pass == 0 && known_bad != NULL &&
				lg_mode_list_find(known_bad, mode) >= 0;
			if (usable(mode) && !skipped && (best == NULL ||
					oracle_better(policy, mode, best, requested))) {
				best = mode;
			}
		}
		if (best != NULL) {
			*pick = *best;
			return true;
		}
	}
	return false;
}
