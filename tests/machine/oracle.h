#ifndef TESTS_MACHINE_ORACLE_H
#define TESTS_MACHINE_ORACLE_H

/*
 * Which modes a DisplayPort link carries, from the specification's numbers
 * and nothing in src/ or backend/sim: a lane's data rate x lanes x 0.8
 * (8b/10b, RBR to HBR3) or x 0.9671 (128b/132b, UHBR); a mode needs its
 * pixel clock x 18 bpp (i915's minimum, 6 bpc RGB) / 8 bytes.
 */

#include <stdbool.h>
#include <linkguard/link.h>
#include <linkguard/mode.h>
#include <linkguard/policy.h>
#include <sim/sink.h>

/* Bytes per second the link carries, in kB/s. */
double oracle_link_kBps(const struct lg_link_params *link);
bool oracle_fits(const struct lg_mode *mode, const struct lg_link_params *link);
/* The sink's modes that the kernel lists on a link lowered to max. */
void oracle_list(const struct sim_sink *sink, const struct lg_link_params *max,
	struct lg_mode_list *out);
/*
 * Whether the kernel's atomic check takes mode on a link lowered to max:
 * some link within it carries the mode at 18 bpp. Linux 6.12 trains SST at
 * HBR3 at most ("128b/132b SST support missing" in
 * intel_dp_compute_config_limits()), though it lists modes against max.
 */
bool oracle_trains(const struct lg_mode *mode, const struct lg_link_params *max,
	bool mst);
/*
 * The mode recovery must end at on list: the policy's first pick that is
 * not known bad, else its first pick (better a known-bad mode than none).
 */
bool oracle_pick(enum lg_policy policy, const struct lg_mode *requested,
	const struct lg_mode_list *list, const struct lg_mode_list *known_bad,
	struct lg_mode *pick);

#endif
