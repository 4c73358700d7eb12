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
/*
 * Whether link is a step down from ceiling: it carries less, or it runs its
 * lanes slower (a sink loses lock at a rate: RBR x2 is below HBR x1 for it).
 * A zero ceiling is no ceiling; a zero link is no step.
 */
bool oracle_link_below(const struct lg_link_params *link,
	const struct lg_link_params *ceiling);
/* lowest becomes link where link carries less, or lowest is zero (none). */
void oracle_keep_lowest(struct lg_link_params *lowest,
	const struct lg_link_params *link);
/*
 * The link i915 trains mode at within max (SST, HBR3 at most): for each bpp
 * from max_bpc x 3, rounded down to a multiple of 6, down to 18, the lowest
 * rate, then the fewest lanes, that carry the mode. False when none does.
 */
bool oracle_train_link(const struct lg_mode *mode, uint32_t max_bpc,
	const struct lg_link_params *max, struct lg_link_params *link);
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
 * The policy as the specification words it, in a few lines of its own:
 * never src/policy.c's ranking, so that a bug there cannot hide here.
 */
/* Whether the spec's policy ranks a before b as a fallback for requested. */
bool oracle_better(enum lg_policy policy, const struct lg_mode *a,
	const struct lg_mode *b, const struct lg_mode *requested);
bool oracle_pick(enum lg_policy policy, const struct lg_mode *requested,
	const struct lg_mode_list *list, const struct lg_mode_list *known_bad,
	struct lg_mode *pick);

#endif
