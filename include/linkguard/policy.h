#ifndef LINKGUARD_POLICY_H
#define LINKGUARD_POLICY_H

#include <linkguard/mode.h>

/**
 * Which property of the requested mode a fallback keeps first.
 *
 * RESOLUTION_FIRST (default): same resolution at the highest refresh not above
 * the requested one, then the largest area at the requested aspect ratio.
 * REFRESH_FIRST: the requested refresh rate at the largest area, then as above.
 */
enum lg_policy {
	LG_POLICY_RESOLUTION_FIRST,
	LG_POLICY_REFRESH_FIRST,
};

/* A width and a height in pixels. */
struct lg_size {
	int32_t width, height;
};

/**
 * Floors a fallback keeps when it can: when some candidate has at least this
 * refresh rate (0.5% below counts: 119.998 Hz meets 120) and at least this
 * size, the candidates that meet every floor rank before all others, each
 * group in the policy's order. When none does, the floors change nothing:
 * better a lesser mode than a dark output. Zero: no floor.
 */
struct lg_policy_floors {
	int32_t refresh_mhz;
	struct lg_size size;
};

/**
 * Ranks the modes in `available` as fallbacks for `requested`, best first,
 * and writes their indices into `order` (room for available->len entries).
 * The requested mode, when listed, comes first whatever the floors (may be
 * NULL). Interlaced modes, modes with a zero size, clock or refresh,
 * duplicates and every mode in `known_bad` (may be NULL) are left out. Pure:
 * no I/O, no allocation. Returns the number of candidates written.
 */
size_t lg_policy_rank(enum lg_policy policy, const struct lg_policy_floors *floors,
	const struct lg_mode *requested, const struct lg_mode_list *available,
	const struct lg_mode_list *known_bad, size_t *order);
/** Whether mode meets every floor. */
bool lg_policy_floors_met(const struct lg_policy_floors *floors,
	const struct lg_mode *mode);

const char *lg_policy_name(enum lg_policy policy);

#endif
