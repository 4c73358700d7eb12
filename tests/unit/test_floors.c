/*
 * The fallback policy's floors (min-refresh, min-resolution), against an
 * oracle: generated monitors with CVT reduced-blanking timings, generated
 * links, the kernel's mode list from the DP bandwidth formula (a mode is
 * listed when it fits the link at 18 bpp), and the fallback order of
 * linkguard(7), FALLBACK POLICY, written as a pairwise comparison.
 */
#include <stdint.h>
#include <stdlib.h>
#include "policy_test.h"
#include "test.h"

static const struct lg_mode *first(enum lg_policy policy,
		const struct lg_policy_floors *floors, const struct lg_mode *requested,
		const struct lg_mode_list *list) {
	return rank_first(policy, floors, requested, list, NULL);
}

/* The sim's 1440p144 monitor (backend/sim/sink.c) after its link fell to HBR x4. */
static const struct lg_mode qhd144 = MODE(2560, 1440, 143912, 586590);
static const struct lg_mode qhd60 = MODE(2560, 1440, 59951, 241500);
static const struct lg_mode fhd144 = MODE(1920, 1080, 143981, 325080);
static const struct lg_mode fhd60 = MODE(1920, 1080, 60000, 148500);
static const struct lg_mode hd60 = MODE(1280, 720, 60000, 74250);

static void test_min_refresh_keeps_144hz_at_1080p(void) {
	const struct lg_mode at_hbr_x4[] = { qhd60, fhd144, fhd60, hd60 };
	struct lg_mode_list list = list_of(at_hbr_x4, 4);
	const struct lg_policy_floors none = {0};
	const struct lg_policy_floors hz120 = { .refresh_mhz = 120000 };
	check(lg_mode_equal(first(LG_POLICY_RESOLUTION_FIRST, &none, &qhd144, &list),
		&qhd60));
	check(lg_mode_equal(first(LG_POLICY_RESOLUTION_FIRST, &hz120, &qhd144, &list),
		&fhd144));
	check(lg_mode_equal(first(LG_POLICY_RESOLUTION_FIRST, NULL, &qhd144, &list),
		&qhd60));
	lg_mode_list_finish(&list);
}

static void test_floor_no_mode_meets_is_ignored(void) {
	const struct lg_mode modes[] = { qhd60, fhd60, hd60 };
	struct lg_mode_list list = list_of(modes, 3);
	const struct lg_policy_floors hz120 = { .refresh_mhz = 120000 };
	check(lg_mode_equal(first(LG_POLICY_RESOLUTION_FIRST, &hz120, &qhd144, &list),
		&qhd60));
	lg_mode_list_finish(&list);
}

static void test_min_resolution_beats_refresh_first(void) {
	const struct lg_mode modes[] = { hd60, fhd60, qhd60 };
	struct lg_mode_list list = list_of(modes, 3);
	const struct lg_mode hd144 = MODE(1280, 720, 144000, 148000);
	const struct lg_mode with_hd144[] = { hd60, hd144, fhd60, qhd60 };
	struct lg_mode_list list2 = list_of(with_hd144, 4);
	const struct lg_policy_floors fhd = { .size = { 1920, 1080 } };
	// refresh-first alone keeps 144 Hz at 720p; the floor keeps 1080p.
	check(lg_mode_equal(first(LG_POLICY_REFRESH_FIRST, NULL, &qhd144, &list2), &hd144));
	check(lg_mode_equal(first(LG_POLICY_REFRESH_FIRST, &fhd, &qhd144, &list2), &qhd60));
	check(lg_mode_equal(first(LG_POLICY_RESOLUTION_FIRST, &fhd, &qhd144, &list), &qhd60));
	lg_mode_list_finish(&list);
	lg_mode_list_finish(&list2);
}

static void test_requested_ranks_first_below_the_floor(void) {
	const struct lg_mode modes[] = { fhd144, qhd60 };
	struct lg_mode_list list = list_of(modes, 2);
	const struct lg_policy_floors hz120 = { .refresh_mhz = 120000 };
	check(lg_mode_equal(first(LG_POLICY_RESOLUTION_FIRST, &hz120, &qhd60, &list),
		&qhd60));
	lg_mode_list_finish(&list);
}

static void test_half_percent_meets_the_floor(void) {
	const struct lg_mode qhd120 = MODE(2560, 1440, 119998, 497750);
	const struct lg_mode fhd_5994 = MODE(1920, 1080, 59940, 148352);
	const struct lg_policy_floors hz120 = { .refresh_mhz = 120000 };
	const struct lg_policy_floors hz60 = { .refresh_mhz = 60000 };
	const struct lg_policy_floors hz61 = { .refresh_mhz = 61000 };
	check(lg_policy_floors_met(&hz120, &qhd120));
	check(lg_policy_floors_met(&hz60, &fhd_5994));
	check(!lg_policy_floors_met(&hz61, &fhd_5994));
	check(!lg_policy_floors_met(&hz120, &qhd60));
}

/* The oracle. */

static uint64_t rng_state;

static uint32_t rng(uint32_t bound) {
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (uint32_t)(rng_state % bound);
}

/* Lane rate in Mbit/s and whether it is a 128b/132b (UHBR) rate. */
static const struct {
	uint32_t mbps;
	bool uhbr;
} rates[] = {
	{ 1620, false }, { 2700, false }, { 5400, false }, { 8100, false },
	{ 10000, true }, { 13500, true }, { 20000, true },
};

/* The kernel lists a mode when it fits at 18 bpp (i915's minimum, 6 bpc). */
static bool fits(const struct lg_mode *mode, uint32_t lanes, uint32_t rate) {
	uint64_t raw_kbps = (uint64_t)lanes * rates[rate].mbps * 1000;
	// 8b/10b carries 80 %; 128b/132b 96.71 % as the kernel counts it.
	uint64_t payload = rates[rate].uhbr ? raw_kbps * 9671 / 10000 : raw_kbps * 8 / 10;
	return (uint64_t)mode->clock_khz * 18 <= payload;
}

/*
 * CVT reduced blanking v2: 80 pixels of horizontal blanking, at least
 * 460 us of vertical blanking; the clock in kHz, the refresh it gives in mHz.
 */
static struct lg_mode cvt_rb2(int32_t width, int32_t height, uint32_t hz) {
	uint64_t htotal = (uint64_t)width + 80;
	uint64_t vactive_us = 1000000 / hz - 460;
	uint64_t vtotal = (uint64_t)height * (1000000 / hz) / vactive_us + 1;
	uint64_t clock_khz = (htotal * vtotal * hz + 999) / 1000;
	return (struct lg_mode){
		.width = width,
		.height = height,
		.clock_khz = (uint32_t)clock_khz,
		.refresh_mhz = (int32_t)(clock_khz * 1000000 / (htotal * vtotal)),
	};
}

/* linkguard(7)'s tolerances: 0.5 % for refresh, 1 % for aspect. */
static bool refresh_at_most(int32_t a, int32_t b) {
	return (int64_t)a * 1000 <= (int64_t)b * 1005;
}

static bool same_aspect(const struct lg_mode *a, const struct lg_mode *b) {
	int64_t x = (int64_t)a->width * b->height, y = (int64_t)b->width * a->height;
	return llabs(x - y) * 100 <= y;
}

static bool meets(const struct lg_policy_floors *f, const struct lg_mode *m) {
	return refresh_at_most(f->refresh_mhz, m->refresh_mhz) &&
		m->width >= f->size.width && m->height >= f->size.height;
}

static int64_t area(const struct lg_mode *m) {
	return (int64_t)m->width * m->height;
}

static int64_t distance(const struct lg_mode *m, const struct lg_mode *r) {
	return llabs((int64_t)m->refresh_mhz - r->refresh_mhz);
}

/* Which rule of section 4 picks m: lower is better. */
static int rule(enum lg_policy policy, const struct lg_mode *m, const struct lg_mode *r) {
	if (policy == LG_POLICY_REFRESH_FIRST && refresh_at_most(m->refresh_mhz,
			r->refresh_mhz) && refresh_at_most(r->refresh_mhz, m->refresh_mhz)) {
		return 0;
	}
	if (m->width == r->width && m->height == r->height &&
			refresh_at_most(m->refresh_mhz, r->refresh_mhz)) {
		return 1;
	}
	return same_aspect(m, r) ? 2 : 3;
}

/* Whether a is a strictly better fallback than b for r. */
static bool better(enum lg_policy policy, const struct lg_mode *a,
		const struct lg_mode *b, const struct lg_mode *r) {
	int ra = rule(policy, a, r), rb = rule(policy, b, r);
	if (ra != rb) {
		return ra < rb;
	}
	switch (ra) {
	case 0: // same refresh: same aspect first, then the largest
		if (same_aspect(a, r) != same_aspect(b, r)) {
			return same_aspect(a, r);
		}
		return area(a) > area(b);
	case 1: // same size: the highest refresh
		return a->refresh_mhz > b->refresh_mhz;
	default: // the largest, then the refresh closest to r's
		if (area(a) != area(b)) {
			return area(a) > area(b);
		}
		return distance(a, r) < distance(b, r);
	}
}

static const struct lg_size sizes[] = {
	{ 3840, 2160 }, { 3440, 1440 }, { 2560, 1440 }, { 2560, 1080 },
	{ 1920, 1200 }, { 1920, 1080 }, { 1680, 1050 }, { 1280, 720 },
	{ 1024, 768 }, { 800, 600 },
};
static const uint32_t refreshes[] = { 30, 50, 60, 75, 100, 120, 144, 165, 240 };

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* A monitor: a few distinct modes, the requested (preferred) one first. */
static void generate_sink(struct lg_mode_list *sink) {
	lg_mode_list_clear(sink);
	uint32_t n = 2 + rng(10);
	while (sink->len < n) {
		const struct lg_size *size = &sizes[rng(N(sizes))];
		struct lg_mode mode = cvt_rb2(size->width, size->height,
			refreshes[rng(N(refreshes))]);
		bool duplicate = false;
		for (size_t i = 0; i < sink->len; i++) {
			duplicate = duplicate || lg_mode_same_timing(&sink->modes[i], &mode);
		}
		if (!duplicate) {
			lg_mode_list_append(sink, &mode);
		}
	}
	sink->modes[0].preferred = true;
}

static struct lg_policy_floors generate_floors(void) {
	static const int32_t hz[] = { 0, 0, 60, 100, 120, 144, 165 };
	struct lg_policy_floors floors = { .refresh_mhz = hz[rng(N(hz))] * 1000 };
	if (rng(3) == 0) {
		floors.size = sizes[rng(N(sizes))];
	}
	return floors;
}

struct oracle_counts {
	int cases, requested_kept, floors_bound, floors_ignored, nothing_fits;
};

/* One generated case: the policy's first pick against the oracle's. */
static void check_case(const struct lg_mode_list *sink, uint32_t lanes,
		uint32_t rate, enum lg_policy policy, const struct lg_policy_floors *floors,
		struct oracle_counts *counts) {
	const struct lg_mode *r = &sink->modes[0];
	struct lg_mode_list listed;
	lg_mode_list_init(&listed);
	bool any_meets = false;
	for (size_t i = 0; i < sink->len; i++) {
		if (fits(&sink->modes[i], lanes, rate)) {
			lg_mode_list_append(&listed, &sink->modes[i]);
			any_meets = any_meets || meets(floors, &sink->modes[i]);
		}
	}
	size_t order[16];
	size_t n = lg_policy_rank(policy, floors, r, &listed, NULL, order);
	counts->cases++;
	check_int_eq(n, listed.len);
	if (n == 0) {
		counts->nothing_fits++;
		lg_mode_list_finish(&listed);
		return;
	}
	const struct lg_mode *pick = &listed.modes[order[0]];
	if (lg_mode_list_find(&listed, r) >= 0) {
		counts->requested_kept++;
		check(lg_mode_equal(pick, r));
		lg_mode_list_finish(&listed);
		return;
	}
	// A floor binds when some listed mode meets it; then the pick meets it.
	if (any_meets) {
		counts->floors_bound += floors->refresh_mhz > 0 || floors->size.width > 0;
		check(meets(floors, pick));
	} else {
		counts->floors_ignored++;
	}
	for (size_t i = 0; i < listed.len; i++) {
		const struct lg_mode *m = &listed.modes[i];
		if (any_meets && !meets(floors, m)) {
			continue;
		}
		if (better(policy, m, pick, r)) {
			fprintf(stderr, "rate %u x%u policy %d floors %d mHz %dx%d: "
				"picked %dx%d@%d, %dx%d@%d is better for %dx%d@%d\n",
				rates[rate].mbps, lanes, policy, floors->refresh_mhz,
				floors->size.width, floors->size.height, pick->width,
				pick->height, pick->refresh_mhz, m->width, m->height,
				m->refresh_mhz, r->width, r->height, r->refresh_mhz);
			test_failures++;
			break;
		}
	}
	lg_mode_list_finish(&listed);
}

static void test_generated_links_against_the_oracle(void) {
	static const uint32_t lane_counts[] = { 1, 2, 4 };
	struct oracle_counts counts = {0};
	struct lg_mode_list sink;
	lg_mode_list_init(&sink);
	rng_state = 0x9e3779b97f4a7c15ull;
	for (int i = 0; i < 2000; i++) {
		generate_sink(&sink);
		struct lg_policy_floors floors = generate_floors();
		for (size_t rate = 0; rate < N(rates); rate++) {
			for (size_t l = 0; l < N(lane_counts); l++) {
				check_case(&sink, lane_counts[l], (uint32_t)rate,
					rng(2) ? LG_POLICY_REFRESH_FIRST :
					LG_POLICY_RESOLUTION_FIRST, &floors, &counts);
			}
		}
	}
	lg_mode_list_finish(&sink);
	fprintf(stderr, "%d cases: requested kept %d, a floor bound %d, "
		"no mode met the floors %d, nothing fit %d\n", counts.cases,
		counts.requested_kept, counts.floors_bound, counts.floors_ignored,
		counts.nothing_fits);
	// The generator reaches every branch of the oracle.
	check(counts.requested_kept > 1000 && counts.floors_bound > 1000 &&
		counts.floors_ignored > 100 && counts.nothing_fits > 100);
}

int main(void) {
	run_test(test_min_refresh_keeps_144hz_at_1080p);
	run_test(test_floor_no_mode_meets_is_ignored);
	run_test(test_min_resolution_beats_refresh_first);
	run_test(test_requested_ranks_first_below_the_floor);
	run_test(test_half_percent_meets_the_floor);
	run_test(test_generated_links_against_the_oracle);
	return test_result();
}
