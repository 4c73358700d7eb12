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

bool oracle_pick(enum lg_policy policy, const struct lg_mode *requested,
		const struct lg_mode_list *list, const struct lg_mode_list *known_bad,
		struct lg_mode *pick) {
	size_t *order = calloc(list->len + 1, sizeof(*order));
	if (order == NULL || requested == NULL) {
		free(order);
		return false;
	}
	size_t n = lg_policy_rank(policy, NULL, requested, list, known_bad, order);
	if (n == 0) {
		n = lg_policy_rank(policy, NULL, requested, list, NULL, order);
	}
	if (n > 0) {
		*pick = list->modes[order[0]];
	}
	free(order);
	return n > 0;
}
