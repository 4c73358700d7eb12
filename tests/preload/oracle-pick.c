/*
 * lg-oracle-pick: the mode recovery must end at, for the shell tests that
 * cannot link the oracle themselves (sway-programs.sh). The policy is the
 * oracle's (tests/machine/oracle.c), as linkguard-recovery(7) words it,
 * never src/policy.c's; the modes' clocks and preferred flag come from the
 * simulated sink's profile.
 *
 *   lg-oracle-pick SINK W H MHZ [W H MHZ]...
 *
 * The first mode is the requested one, the others the kernel's list; prints
 * the pick as "WxH@mHz", or exits 1 when nothing fits or a mode is not the
 * sink's.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include "machine/oracle.h"

/* The sink's mode of that size and refresh, or NULL. */
static const struct lg_mode *sink_mode(const struct sim_sink *sink,
		char *const *arg) {
	int32_t width = atoi(arg[0]), height = atoi(arg[1]), refresh = atoi(arg[2]);
	for (size_t i = 0; i < sink->n_modes; i++) {
		const struct lg_mode *mode = &sink->modes[i];
		if (mode->width == width && mode->height == height &&
				mode->refresh_mhz == refresh) {
			return mode;
		}
	}
	fprintf(stderr, "lg-oracle-pick: %sx%s@%s is no mode of %s\n", arg[0],
		arg[1], arg[2], sink->name);
	return NULL;
}

int main(int argc, char *argv[]) {
	if (argc < 5 || (argc - 2) % 3 != 0) {
		fprintf(stderr, "usage: %s SINK W H MHZ [W H MHZ]...\n", argv[0]);
		return 2;
	}
	const struct sim_sink *sink = sim_sink_find(argv[1]);
	if (sink == NULL) {
		fprintf(stderr, "lg-oracle-pick: no sink profile %s\n", argv[1]);
		return 2;
	}
	const struct lg_mode *requested = sink_mode(sink, &argv[2]);
	struct lg_mode_list listed;
	lg_mode_list_init(&listed);
	bool known = requested != NULL;
	for (int i = 5; known && i < argc; i += 3) {
		const struct lg_mode *mode = sink_mode(sink, &argv[i]);
		known = mode != NULL;
		if (known) {
			lg_mode_list_append(&listed, mode);
		}
	}
	struct lg_mode pick;
	bool picked = known && oracle_pick(LG_POLICY_RESOLUTION_FIRST, requested,
		&listed, NULL, &pick);
	if (picked) {
		printf("%" PRId32 "x%" PRId32 "@%" PRId32 "\n", pick.width, pick.height,
			pick.refresh_mhz);
	}
	lg_mode_list_finish(&listed);
	return picked ? 0 : 1;
}
