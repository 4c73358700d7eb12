/*
 * lg-oracle-pick: the mode recovery must end at, for the shell tests that
 * cannot link the oracle themselves (sway-programs.sh), from the world
 * alone: the simulated sink's profile and the link the kernel allows now
 * (its maximum, as the sim logs it). The requested mode is the sink's
 * preferred one, the kernel's list and atomic check are the oracle's DP
 * formulas and the policy is the oracle's (tests/machine/oracle.c), as
 * linkguard-recovery(7) words it, never src/policy.c's.
 *
 *   lg-oracle-pick SINK RATE_MBPS LANES
 *
 * Prints the pick as "WxH@mHz", or exits 1 when nothing fits.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include "machine/oracle.h"

int main(int argc, char *argv[]) {
	if (argc != 4) {
		fprintf(stderr, "usage: %s SINK RATE_MBPS LANES\n", argv[0]);
		return 2;
	}
	const struct sim_sink *sink = sim_sink_find(argv[1]);
	if (sink == NULL) {
		fprintf(stderr, "lg-oracle-pick: no sink profile %s\n", argv[1]);
		return 2;
	}
	const struct lg_link_params max = {
		.rate_mbps = (uint32_t)strtoul(argv[2], NULL, 10),
		.lanes = (uint32_t)strtoul(argv[3], NULL, 10),
	};
	struct lg_mode_list listed, taken;
	lg_mode_list_init(&listed);
	lg_mode_list_init(&taken);
	oracle_list(sink, &max, &listed);
	for (size_t i = 0; i < listed.len; i++) {
		if (oracle_trains(&listed.modes[i], &max, false)) {
			lg_mode_list_append(&taken, &listed.modes[i]);
		}
	}
	struct lg_mode pick;
	bool picked = oracle_pick(LG_POLICY_RESOLUTION_FIRST, sim_sink_preferred(sink),
		&taken, NULL, &pick);
	if (picked) {
		printf("%" PRId32 "x%" PRId32 "@%" PRId32 "\n", pick.width, pick.height,
			pick.refresh_mhz);
	}
	lg_mode_list_finish(&listed);
	lg_mode_list_finish(&taken);
	return picked ? 0 : 1;
}
