/*
 * The sim's kernel link model (backend/sim/link.c) on its own: which link
 * i915 trains for a mode, checked against an oracle written here from the
 * DP formulas; i915's retry-then-lower training from the parameters that
 * failed, SST and MST ladders as a policy would walk them; pruning at 18
 * bpp, BAD and the silent end of the ladder, cable changes on a running
 * link, glitches and replug.
 */
#include <dp/dp.h>
#include <sim/link.h>
#include "test.h"

#define ANY_CABLE ((struct lg_link_params){0})
#define N(a) (sizeof(a) / sizeof((a)[0]))

static struct sim_link plugged_as(const char *sink, bool mst) {
	struct sim_link link = {
		.name = "DP-1",
		.source = { .lanes = 4, .rate_mbps = DP_RATE_HBR3 },
		.mst = mst,
	};
	sim_link_plug(&link, sim_sink_find(sink));
	return link;
}

static struct sim_link plugged(const char *sink) {
	return plugged_as(sink, false);
}

static const struct lg_mode *mode_at(const struct sim_link *link, int32_t width,
		int32_t height, int32_t refresh_hz) {
	for (size_t i = 0; i < link->sink->n_modes; i++) {
		const struct lg_mode *mode = &link->sink->modes[i];
		if (mode->width == width && mode->height == height &&
				(mode->refresh_mhz + 500) / 1000 == refresh_hz) {
			return mode;
		}
	}
	return NULL;
}

static size_t probed(const struct sim_link *link) {
	struct lg_mode_list modes;
	lg_mode_list_init(&modes);
	check(sim_link_probe(link, &modes));
	size_t len = modes.len;
	check_int_eq(sim_link_count_modes(link), len);
	lg_mode_list_finish(&modes);
	return len;
}

/* What a resolution-first policy picks: the listed mode with the most pixels per second. */
static const struct lg_mode *largest_listed(const struct sim_link *link) {
	struct lg_mode_list modes;
	lg_mode_list_init(&modes);
	check(sim_link_probe(link, &modes));
	const struct lg_mode *largest = NULL;
	for (size_t i = 0; i < modes.len; i++) {
		const struct lg_mode *mode = mode_at(link, modes.modes[i].width,
			modes.modes[i].height, (modes.modes[i].refresh_mhz + 500) / 1000);
		if (largest == NULL || mode->clock_khz > largest->clock_khz) {
			largest = mode;
		}
	}
	lg_mode_list_finish(&modes);
	return largest;
}

static void set_cable(struct sim_link *link, uint32_t rate_mbps, uint32_t lanes,
		enum sim_train_result want) {
	const struct lg_link_params cable = { .lanes = lanes, .rate_mbps = rate_mbps };
	check_int_eq(sim_link_set_cable(link, &cable), want);
}

static void check_params(const struct lg_link_params *params, uint32_t lanes,
		uint32_t rate_mbps) {
	check_int_eq(params->lanes, lanes);
	check_int_eq(params->rate_mbps, rate_mbps);
}

/*
 * The oracle, from first principles and not from dp.c or i915.c: a lane at
 * R Mbit/s carries R x 0.8 of data with 8b/10b channel coding (RBR to HBR3)
 * and R x 0.9671 with 128b/132b (UHBR10 and up, as the kernel's
 * drm_dp_bw_channel_coding_efficiency() counts it); a mode needs its pixel
 * clock x bpp / 8 bytes per second. Compared in bit/s, cross-multiplied so
 * that no division rounds.
 */
static const uint32_t oracle_rates[] = { 1620, 2700, 5400, 8100, 10000, 13500, 20000 };

static bool oracle_carries(uint32_t rate_mbps, uint32_t lanes, uint32_t clock_khz,
		uint32_t bpp) {
	uint64_t need_bps = (uint64_t)clock_khz * 1000 * bpp;
	uint64_t raw_bps = (uint64_t)rate_mbps * 1000000 * lanes;
	if (rate_mbps >= 10000) {
		return need_bps * 10000 <= raw_bps * 9671;
	}
	return need_bps * 10 <= raw_bps * 8;
}

struct oracle_link {
	bool found;
	uint32_t rate_mbps, lanes, bpp;
};

/*
 * Linux 6.12, SST: intel_dp_compute_config_limits() caps the rate at HBR3
 * (no 128b/132b SST yet) and rounds the top bpp down to a multiple of 6;
 * intel_dp_compute_link_config_wide() then tries each bpp from the top
 * down to 18 in steps of 6, each rate from the lowest, each lane count
 * from 1, and keeps the first that carries the mode.
 */
static struct oracle_link oracle_sst(uint32_t clock_khz, uint32_t max_bpc,
		uint32_t max_rate, uint32_t max_lanes) {
	uint32_t rate_cap = max_rate < 8100 ? max_rate : 8100;
	for (int bpp = (int)(max_bpc * 3) / 6 * 6; bpp >= 18; bpp -= 6) {
		for (size_t r = 0; r < N(oracle_rates) && oracle_rates[r] <= rate_cap; r++) {
			uint32_t rate = oracle_rates[r];
			for (uint32_t lanes = 1; lanes <= max_lanes; lanes *= 2) {
				if (oracle_carries(rate, lanes, clock_khz, (uint32_t)bpp)) {
					return (struct oracle_link){ true, rate, lanes, (uint32_t)bpp };
				}
			}
		}
	}
	return (struct oracle_link){ false, 0, 0, 0 };
}

/*
 * MST: intel_dp_mst_compute_config_limits() pins the link to the maximum
 * and the bpp to 8 bpc at most; the bpp steps down by 6 to 18.
 */
static struct oracle_link oracle_mst(uint32_t clock_khz, uint32_t max_bpc,
		uint32_t max_rate, uint32_t max_lanes) {
	int top = (int)(max_bpc * 3 < 24 ? max_bpc * 3 : 24) / 6 * 6;
	for (int bpp = top; bpp >= 18; bpp -= 6) {
		if (oracle_carries(max_rate, max_lanes, clock_khz, (uint32_t)bpp)) {
			return (struct oracle_link){ true, max_rate, max_lanes, (uint32_t)bpp };
		}
	}
	return (struct oracle_link){ false, 0, 0, 0 };
}

struct oracle_tally {
	size_t compared, trained, listed_but_rejected;
};

/*
 * Trains mode on link (with no cable limit) and compares the atomic check,
 * the link trained and its bpp with the oracle's.
 */
static void compare_with_oracle(struct sim_link *link, const struct lg_mode *mode,
		struct oracle_tally *tally) {
	const struct lg_link_params max = link->max;
	struct oracle_link want = link->mst ?
		oracle_mst(mode->clock_khz, link->sink->max_bpc, max.rate_mbps, max.lanes) :
		oracle_sst(mode->clock_khz, link->sink->max_bpc, max.rate_mbps, max.lanes);
	// i915 lists a mode that fits the maximum at 18 bpp.
	bool listed = oracle_carries(max.rate_mbps, max.lanes, mode->clock_khz, 18);
	check(sim_link_mode_valid(link, mode) == want.found);
	enum sim_train_result result = sim_link_train(link, mode);
	tally->compared++;
	tally->listed_but_rejected += listed && !want.found;
	if (!want.found) {
		check_int_eq(result, SIM_REJECTED);
		return;
	}
	tally->trained++;
	check_int_eq(result, SIM_TRAINED);
	if (link->params.rate_mbps != want.rate_mbps || link->params.lanes != want.lanes ||
			link->bpp != want.bpp) {
		fprintf(stderr, "  %s %u kHz, %u bpc, max %ux%u: sim %ux%u at %u bpp, "
			"oracle %ux%u at %u\n", link->mst ? "MST" : "SST", mode->clock_khz,
			link->sink->max_bpc, max.lanes, max.rate_mbps, link->params.lanes,
			link->params.rate_mbps, link->bpp, want.lanes, want.rate_mbps, want.bpp);
		test_failures++;
	}
	check(listed);
}

/* Every mode of a sink under every maximum the kernel can hold for it. */
static void compare_sink_with_oracle(const struct sim_sink *sink, bool mst,
		struct oracle_tally *tally) {
	struct sim_link link = { .name = "DP-1", .mst = mst };
	sim_link_plug(&link, sink);
	for (size_t r = 0; r < N(oracle_rates) && oracle_rates[r] <= sink->max_rate_mbps; r++) {
		for (uint32_t lanes = 1; lanes <= sink->max_lanes; lanes *= 2) {
			// The kernel's current maximum, as a fallback may have left it.
			link.max = (struct lg_link_params){
				.lanes = lanes,
				.rate_mbps = oracle_rates[r],
			};
			size_t listed = 0;
			for (size_t i = 0; i < sink->n_modes; i++) {
				listed += oracle_carries(oracle_rates[r], lanes,
					sink->modes[i].clock_khz, 18);
				compare_with_oracle(&link, &sink->modes[i], tally);
			}
			check_int_eq(probed(&link), listed);
		}
	}
}

static void test_every_profile_trains_what_the_oracle_says(void) {
	const char *sinks[] = { "4k60", "1440p144", "1080p60-rbr", "uhbr-8k" };
	struct oracle_tally sst = {0}, mst = {0};
	for (size_t i = 0; i < N(sinks); i++) {
		compare_sink_with_oracle(sim_sink_find(sinks[i]), false, &sst);
		compare_sink_with_oracle(sim_sink_find(sinks[i]), true, &mst);
	}
	// 4 rates x 3 lane counts x 7 modes, 3 x 3 x 6, 1 x 3 x 4, 7 x 3 x 5.
	check_int_eq(sst.compared, 84 + 54 + 12 + 105);
	check_int_eq(mst.compared, sst.compared);
	check(sst.trained > 100 && mst.trained > 100);
	// The 6.12 SST cap at HBR3 shows: 8K60 is listed above HBR3, never set.
	check(sst.listed_but_rejected > 0);
	check_int_eq(mst.listed_but_rejected, 0);
}

/*
 * Generated modes: for each rate, lane count and bpp, the largest pixel
 * clock that fits exactly and the one just above it, and pseudo-random
 * clocks; on a sink of every bpc that trains any rate.
 */
#define GEN_EDGES (N(oracle_rates) * 3 * 4 * 2)
#define GEN_RANDOM 120

static void test_generated_modes_train_what_the_oracle_says(void) {
	static struct lg_mode modes[GEN_EDGES + GEN_RANDOM];
	size_t n = 0;
	const uint32_t bpps[] = { 18, 24, 30, 36 };
	for (size_t r = 0; r < N(oracle_rates); r++) {
		for (uint32_t lanes = 1; lanes <= 4; lanes *= 2) {
			uint64_t raw_kbps = (uint64_t)oracle_rates[r] * 1000 * lanes;
			uint64_t payload_kbps = oracle_rates[r] >= 10000 ?
				raw_kbps * 9671 / 10000 : raw_kbps * 8 / 10;
			for (size_t b = 0; b < N(bpps); b++) {
				uint32_t edge = (uint32_t)(payload_kbps / bpps[b]);
				modes[n++].clock_khz = edge;
				modes[n++].clock_khz = edge + 1;
			}
		}
	}
	uint32_t state = 12345;
	while (n < N(modes)) {
		state = state * 1103515245 + 12345;
		modes[n++].clock_khz = 20000 + (state >> 8) % 2500000;
	}
	for (size_t i = 0; i < n; i++) {
		// Distinct timings: the atomic check wants one of the sink's own.
		modes[i].width = (int32_t)i + 1;
		modes[i].height = 1;
		modes[i].refresh_mhz = 60000;
	}
	struct sim_sink sink = {
		.name = "generated", .description = "generated",
		.max_lanes = 4, .max_rate_mbps = DP_RATE_UHBR20,
		.modes = modes, .n_modes = n,
	};
	struct oracle_tally tally = {0};
	const uint32_t bpcs[] = { 6, 8, 10, 12 };
	for (size_t b = 0; b < N(bpcs); b++) {
		sink.max_bpc = bpcs[b];
		compare_sink_with_oracle(&sink, false, &tally);
		compare_sink_with_oracle(&sink, true, &tally);
	}
	check_int_eq(n, GEN_EDGES + GEN_RANDOM);
	check_int_eq(tally.compared, N(bpcs) * 2 * N(oracle_rates) * 3 * n);
	check(tally.trained > tally.compared / 4);
	check(tally.trained < tally.compared);
}

static void test_plug_starts_at_min_of_source_and_sink(void) {
	struct sim_link link = plugged("1440p144");
	check_params(&link.max, 4, DP_RATE_HBR2); // the sink's limit
	check_params(&link.params, 0, 0); // no modeset yet
	check_int_eq(link.status, LG_LINK_STATUS_GOOD);
	check(!link.trained);

	struct sim_link narrow = { .name = "DP-2",
		.source = { .lanes = 2, .rate_mbps = DP_RATE_HBR } };
	sim_link_plug(&narrow, sim_sink_find("4k60"));
	check_params(&narrow.max, 2, DP_RATE_HBR); // the source's limit
	check_int_eq(probed(&narrow), 4); // 4.32 Gbit/s: 1440p60 needs 4.347

	struct sim_link unlimited = { .name = "DP-3" };
	sim_link_plug(&unlimited, sim_sink_find("uhbr-8k"));
	check_params(&unlimited.max, 4, DP_RATE_UHBR20);
}

/*
 * The example: a 4K60 10 bpc sink allowed HBR3 x4 trains HBR2 x4 at
 * 30 bpp (2,160,000 kB/s >= 533,250 x 30 / 8), so a cable that holds HBR2
 * x4 carries it without a failure.
 */
static void test_4k60_10bpc_trains_hbr2_x4_at_30bpp(void) {
	struct sim_link link = plugged("4k60");
	set_cable(&link, DP_RATE_HBR2, 4, SIM_UNCHANGED);
	check_int_eq(sim_link_train(&link, mode_at(&link, 3840, 2160, 60)), SIM_TRAINED);
	check_params(&link.params, 4, DP_RATE_HBR2);
	check_int_eq(link.bpp, 30);
	check_params(&link.max, 4, DP_RATE_HBR3); // the maximum is untouched
	// A smaller mode trains slower: 1080p60 at 30 bpp fits RBR x4.
	check_int_eq(sim_link_train(&link, mode_at(&link, 1920, 1080, 60)), SIM_TRAINED);
	check_params(&link.params, 4, DP_RATE_RBR);
	check_int_eq(link.bpp, 30);
}

/* i915: the first failure is retried in the kernel, silently. */
static void test_first_failure_retried_at_same_params_without_bad(void) {
	struct sim_link link = plugged("4k60");
	set_cable(&link, DP_RATE_HBR, 0, SIM_UNCHANGED); // nothing runs yet
	const struct lg_mode *uhd60 = mode_at(&link, 3840, 2160, 60);
	check_int_eq(sim_link_train(&link, uhd60), SIM_RETRY);
	check(link.retry_pending);
	check(!link.trained);
	check_int_eq(link.status, LG_LINK_STATUS_GOOD);
	check_params(&link.params, 4, DP_RATE_HBR2);
	check_params(&link.max, 4, DP_RATE_HBR3);
	check_int_eq(probed(&link), 7);
}

/* The second consecutive failure lowers the maximum below what failed. */
static void test_second_failure_lowers_from_the_failed_params(void) {
	struct sim_link link = plugged("4k60");
	set_cable(&link, DP_RATE_HBR, 0, SIM_UNCHANGED);
	const struct lg_mode *uhd60 = mode_at(&link, 3840, 2160, 60);
	check_int_eq(sim_link_train(&link, uhd60), SIM_RETRY);
	check_int_eq(sim_link_retry(&link), SIM_LOWERED);
	check(!link.retry_pending);
	check_int_eq(link.status, LG_LINK_STATUS_BAD);
	// HBR2 x4 failed: HBR x4, not HBR2 x4 one rung below the maximum.
	check_params(&link.max, 4, DP_RATE_HBR);
	check_int_eq(probed(&link), 6); // 4K60 pruned: 9.6 > 8.64 Gbit/s at 18 bpp
	check(!sim_link_mode_valid(&link, uhd60));

	const struct lg_mode *uhd30 = mode_at(&link, 3840, 2160, 30);
	check(sim_link_mode_valid(&link, uhd30));
	check_int_eq(sim_link_train(&link, uhd30), SIM_TRAINED);
	check_params(&link.params, 4, DP_RATE_HBR);
	check_int_eq(link.bpp, 24); // 27 would fit; i915 steps by 6
	check(link.trained);
	check_int_eq(link.status, LG_LINK_STATUS_GOOD);
	check_int_eq(sim_link_retry(&link), SIM_UNCHANGED); // nothing pending
}

static void test_heal_before_the_retry_lets_it_train(void) {
	struct sim_link link = plugged("4k60");
	set_cable(&link, DP_RATE_HBR, 0, SIM_UNCHANGED);
	check_int_eq(sim_link_train(&link, mode_at(&link, 3840, 2160, 60)), SIM_RETRY);
	set_cable(&link, 0, 0, SIM_UNCHANGED); // heal: not running, nothing trains
	check_int_eq(sim_link_retry(&link), SIM_TRAINED);
	check_params(&link.params, 4, DP_RATE_HBR2);
	check_params(&link.max, 4, DP_RATE_HBR3);
	check_int_eq(link.status, LG_LINK_STATUS_GOOD);
}

/*
 * A user-space modeset during the retry window is the second failure. The
 * same mode committed again is none (link-status is still GOOD): only off
 * and on again trains it.
 */
static void test_modeset_during_retry_counts_as_second_failure(void) {
	struct sim_link link = plugged("1440p144");
	set_cable(&link, DP_RATE_HBR, 0, SIM_UNCHANGED);
	const struct lg_mode *qhd144 = mode_at(&link, 2560, 1440, 144);
	check_int_eq(sim_link_train(&link, qhd144), SIM_RETRY);
	check_params(&link.params, 4, DP_RATE_HBR2); // 14.08 Gbit/s at 24 bpp
	check_int_eq(sim_link_train(&link, qhd144), SIM_UNCHANGED);
	check(link.retry_pending);
	sim_link_off(&link);
	check_int_eq(sim_link_train(&link, qhd144), SIM_LOWERED);
	check_int_eq(sim_link_retry(&link), SIM_UNCHANGED); // superseded
	check_params(&link.max, 4, DP_RATE_HBR);
	check_int_eq(probed(&link), 4); // 1440p144, 1440p120 pruned
}

/*
 * drm_atomic_crtc_needs_modeset(): a sink that lost lock is not retrained
 * by its mode committed again while link-status is GOOD; by another mode,
 * by off and on, or after BAD it is.
 */
static void test_same_mode_with_link_status_good_is_no_modeset(void) {
	struct sim_link link = plugged("4k60");
	const struct lg_mode *uhd60 = mode_at(&link, 3840, 2160, 60);
	const struct lg_mode *uhd30 = mode_at(&link, 3840, 2160, 30);
	check_int_eq(sim_link_train(&link, uhd60), SIM_TRAINED);
	sim_link_lose_lock(&link, 0);
	check_int_eq(sim_link_train(&link, uhd60), SIM_UNCHANGED);
	check(!sim_link_sink_locked(&link));
	sim_link_off(&link);
	check(!link.trained);
	check_int_eq(sim_link_train(&link, uhd60), SIM_TRAINED);
	check(sim_link_sink_locked(&link));
	sim_link_lose_lock(&link, 0);
	check_int_eq(sim_link_train(&link, uhd30), SIM_TRAINED);
	check(sim_link_sink_locked(&link));
	check(sim_link_glitch(&link));
	check_int_eq(sim_link_train(&link, uhd30), SIM_TRAINED);
	check_int_eq(link.status, LG_LINK_STATUS_GOOD);
}

/* A link that ran fine goes BAD later: failure is asynchronous. */
static void test_cable_degrading_under_a_running_link(void) {
	struct sim_link link = plugged("4k60");
	const struct lg_mode *uhd60 = mode_at(&link, 3840, 2160, 60);
	check_int_eq(sim_link_train(&link, uhd60), SIM_TRAINED);
	set_cable(&link, DP_RATE_HBR3, 4, SIM_UNCHANGED); // still holds
	set_cable(&link, DP_RATE_HBR2, 0, SIM_UNCHANGED); // HBR2 x4 still holds
	check(link.trained);
	set_cable(&link, DP_RATE_HBR, 0, SIM_RETRY); // lost lock; kernel retrains
	check_int_eq(link.status, LG_LINK_STATUS_GOOD);
	check_int_eq(sim_link_retry(&link), SIM_LOWERED);
	check_int_eq(link.status, LG_LINK_STATUS_BAD);
	check_params(&link.max, 4, DP_RATE_HBR);
	check_int_eq(sim_link_train(&link, mode_at(&link, 3840, 2160, 30)), SIM_TRAINED);
	check_params(&link.params, 4, DP_RATE_HBR);

	// Fewer lanes: the rate is lowered at 4 lanes first.
	set_cable(&link, 0, 2, SIM_RETRY);
	check_int_eq(sim_link_retry(&link), SIM_LOWERED);
	check_params(&link.max, 4, DP_RATE_RBR);
}

/* The kernel never raises the link by itself; a replug resets it. */
static void test_heal_does_not_raise_the_link_replug_does(void) {
	struct sim_link link = plugged("4k60");
	check_int_eq(sim_link_train(&link, mode_at(&link, 3840, 2160, 60)), SIM_TRAINED);
	set_cable(&link, DP_RATE_HBR, 0, SIM_RETRY);
	check_int_eq(sim_link_retry(&link), SIM_LOWERED);
	set_cable(&link, 0, 0, SIM_UNCHANGED);
	check_params(&link.max, 4, DP_RATE_HBR);
	check_int_eq(link.status, LG_LINK_STATUS_BAD);
	sim_link_unplug(&link);
	check_int_eq(probed(&link), 0);
	check(!sim_link_glitch(&link));
	check_params(&link.params, 0, 0);
	sim_link_plug(&link, sim_sink_find("4k60"));
	check_params(&link.max, 4, DP_RATE_HBR3);
	check_int_eq(link.status, LG_LINK_STATUS_GOOD);
	check_int_eq(probed(&link), 7);
}

/*
 * The cable: HBR2 x2 under a 4K60 sink, each time with the largest
 * mode still listed. HBR2 x4 fails -> HBR x4 (4K30 fails) -> RBR x4 (1440p60
 * fails) -> HBR3 x2 (4K60 again, fails) -> HBR2 x2, where 4K30 trains.
 */
static void test_hbr2_x2_cable_under_4k60_walks_the_sst_ladder(void) {
	struct sim_link link = plugged("4k60");
	set_cable(&link, DP_RATE_HBR2, 2, SIM_UNCHANGED);
	const struct {
		int32_t width, height, refresh_hz;
		struct lg_link_params trained, lowered;
		uint32_t bpp;
	} steps[] = {
		{ 3840, 2160, 60, { 4, DP_RATE_HBR2 }, { 4, DP_RATE_HBR }, 30 },
		{ 3840, 2160, 30, { 4, DP_RATE_HBR }, { 4, DP_RATE_RBR }, 24 },
		{ 2560, 1440, 60, { 4, DP_RATE_RBR }, { 2, DP_RATE_HBR3 }, 18 },
		{ 3840, 2160, 60, { 2, DP_RATE_HBR3 }, { 2, DP_RATE_HBR2 }, 24 },
	};
	for (size_t i = 0; i < N(steps); i++) {
		const struct lg_mode *mode = largest_listed(&link);
		if (mode != mode_at(&link, steps[i].width, steps[i].height,
				steps[i].refresh_hz) || mode == NULL) {
			fprintf(stderr, "  step %zu: another mode is the largest listed\n", i);
			test_failures++;
			return;
		}
		check_int_eq(sim_link_train(&link, mode), SIM_RETRY);
		check_params(&link.params, steps[i].trained.lanes, steps[i].trained.rate_mbps);
		check_int_eq(link.bpp, steps[i].bpp);
		check_int_eq(sim_link_retry(&link), SIM_LOWERED);
		check_params(&link.max, steps[i].lowered.lanes, steps[i].lowered.rate_mbps);
	}
	const struct lg_mode *uhd30 = mode_at(&link, 3840, 2160, 30);
	check(largest_listed(&link) == uhd30);
	check_int_eq(sim_link_train(&link, uhd30), SIM_TRAINED);
	check_params(&link.params, 2, DP_RATE_HBR2);
	check_int_eq(link.bpp, 24);
	check_int_eq(link.status, LG_LINK_STATUS_GOOD);
}

/*
 * A cable that trains nothing, the largest listed mode each time, down to
 * the end: what each modeset trains and the maximum it leaves (worked out by
 * hand from intel_dp_compute_link_config_wide() and
 * reduce_link_params_in_rate_lane_order()).
 */
static void test_sst_ladder_to_the_end_with_a_policy(void) {
	struct sim_link link = plugged("4k60");
	set_cable(&link, 1, 0, SIM_UNCHANGED);
	const struct {
		uint32_t clock_khz;
		struct lg_link_params trained;
		uint32_t bpp;
		struct lg_link_params lowered;
	} steps[] = {
		{ 533250, { 4, DP_RATE_HBR2 }, 30, { 4, DP_RATE_HBR } },
		{ 297000, { 4, DP_RATE_HBR }, 24, { 4, DP_RATE_RBR } },
		{ 241500, { 4, DP_RATE_RBR }, 18, { 2, DP_RATE_HBR3 } },
		{ 533250, { 2, DP_RATE_HBR3 }, 24, { 2, DP_RATE_HBR2 } },
		{ 297000, { 2, DP_RATE_HBR2 }, 24, { 2, DP_RATE_HBR } },
		{ 148500, { 2, DP_RATE_HBR }, 24, { 2, DP_RATE_RBR } },
		{ 74250, { 2, DP_RATE_RBR }, 30, { 1, DP_RATE_HBR3 } },
		{ 297000, { 1, DP_RATE_HBR3 }, 18, { 1, DP_RATE_HBR2 } },
		{ 148500, { 1, DP_RATE_HBR2 }, 24, { 1, DP_RATE_HBR } },
		{ 74250, { 1, DP_RATE_HBR }, 24, { 1, DP_RATE_RBR } },
	};
	for (size_t i = 0; i < N(steps); i++) {
		const struct lg_mode *mode = largest_listed(&link);
		if (mode == NULL || mode->clock_khz != steps[i].clock_khz) {
			fprintf(stderr, "  step %zu: another mode is the largest listed\n", i);
			test_failures++;
			return;
		}
		check_int_eq(sim_link_train(&link, mode), SIM_RETRY);
		check_params(&link.params, steps[i].trained.lanes, steps[i].trained.rate_mbps);
		check_int_eq(link.bpp, steps[i].bpp);
		check_int_eq(sim_link_retry(&link), SIM_LOWERED);
		check_params(&link.max, steps[i].lowered.lanes, steps[i].lowered.rate_mbps);
	}
	// RBR x1: 1024x768 at 18 bpp; then nothing is left to lower.
	const struct lg_mode *xga = mode_at(&link, 1024, 768, 60);
	check(largest_listed(&link) == xga);
	check_int_eq(sim_link_train(&link, xga), SIM_RETRY);
	check_params(&link.params, 1, DP_RATE_RBR);
	check_int_eq(link.bpp, 18);
	check_int_eq(sim_link_retry(&link), SIM_SILENT);
	check(link.retrain_disabled);
}

/*
 * MST trains the maximum and lowers it in bandwidth order (payloads in
 * kB/s: HBR2x4 2160000, HBR3x2 1620000, HBR2x2 1080000 = HBRx4, the lower
 * rate below, HBR3x1 810000, RBRx4 648000, HBR2x1 540000 = HBRx2, RBRx2
 * 324000, HBRx1 270000, RBRx1 162000).
 */
static void test_mst_ladder_in_bandwidth_order(void) {
	struct sim_link link = plugged_as("4k60", true);
	set_cable(&link, 1, 0, SIM_UNCHANGED);
	const struct lg_link_params ladder[] = {
		{ 4, DP_RATE_HBR3 }, { 4, DP_RATE_HBR2 }, { 2, DP_RATE_HBR3 },
		{ 2, DP_RATE_HBR2 }, { 4, DP_RATE_HBR }, { 1, DP_RATE_HBR3 },
		{ 4, DP_RATE_RBR }, { 1, DP_RATE_HBR2 }, { 2, DP_RATE_HBR },
		{ 2, DP_RATE_RBR }, { 1, DP_RATE_HBR }, { 1, DP_RATE_RBR },
	};
	for (size_t i = 0; i < N(ladder); i++) {
		check_params(&link.max, ladder[i].lanes, ladder[i].rate_mbps);
		const struct lg_mode *mode = largest_listed(&link);
		if (mode == NULL) {
			fprintf(stderr, "  rung %zu: nothing listed\n", i);
			test_failures++;
			return;
		}
		check_int_eq(sim_link_train(&link, mode), SIM_RETRY);
		check_params(&link.params, ladder[i].lanes, ladder[i].rate_mbps);
		check(link.bpp >= 18 && link.bpp <= 24); // MST stays at 8 bpc or less
		check_int_eq(sim_link_retry(&link),
			i + 1 < N(ladder) ? SIM_LOWERED : SIM_SILENT);
	}
	check(link.retrain_disabled);
}

/*
 * 6.12's MST fallback crosses from UHBR into 8b/10b: UHBR20 x4 -> UHBR13.5
 * x4 -> UHBR20 x2 -> UHBR10 x4 -> UHBR13.5 x2 (8K60 pruned: 37.2 Gbit/s at
 * 18 bpp > 26.2) -> HBR3 x4, which the cable holds.
 */
static void test_mst_uhbr_ladder_crosses_into_8b10b(void) {
	struct sim_link link = { .name = "DP-1", .mst = true };
	sim_link_plug(&link, sim_sink_find("uhbr-8k"));
	const struct lg_mode *uhd8k = mode_at(&link, 7680, 4320, 60);
	check_int_eq(sim_link_train(&link, uhd8k), SIM_TRAINED);
	check_params(&link.params, 4, DP_RATE_UHBR20);
	check_int_eq(link.bpp, 24);
	set_cable(&link, DP_RATE_HBR3, 0, SIM_RETRY);
	check_int_eq(sim_link_retry(&link), SIM_LOWERED);
	const struct lg_link_params ladder[] = {
		{ 4, DP_RATE_UHBR13_5 }, { 2, DP_RATE_UHBR20 }, { 4, DP_RATE_UHBR10 },
		{ 2, DP_RATE_UHBR13_5 }, { 4, DP_RATE_HBR3 },
	};
	for (size_t i = 0; i + 1 < N(ladder); i++) {
		check_params(&link.max, ladder[i].lanes, ladder[i].rate_mbps);
		check(sim_link_mode_valid(&link, uhd8k) == (i < 3));
		check_int_eq(sim_link_train(&link, largest_listed(&link)), SIM_RETRY);
		check_int_eq(sim_link_retry(&link), SIM_LOWERED);
	}
	check_params(&link.max, 4, DP_RATE_HBR3);
	check_int_eq(sim_link_train(&link, largest_listed(&link)), SIM_TRAINED);
	check_params(&link.params, 4, DP_RATE_HBR3);
}

/*
 * SST on a UHBR sink in 6.12: the modes are listed against UHBR20 x4, but
 * compute config stops at HBR3, so 8K60 fails the atomic check (no DSC).
 */
static void test_sst_uhbr_sink_trains_at_most_hbr3(void) {
	struct sim_link link = { .name = "DP-1" };
	sim_link_plug(&link, sim_sink_find("uhbr-8k"));
	check_int_eq(probed(&link), 5);
	const struct lg_mode *uhd8k = mode_at(&link, 7680, 4320, 60);
	check(!sim_link_mode_valid(&link, uhd8k));
	check_int_eq(sim_link_train(&link, uhd8k), SIM_REJECTED);
	check_int_eq(link.status, LG_LINK_STATUS_BAD);
	check_int_eq(sim_link_train(&link, mode_at(&link, 3840, 2160, 120)), SIM_TRAINED);
	check_params(&link.params, 4, DP_RATE_HBR3);
	check_int_eq(link.bpp, 24);
	check_int_eq(link.status, LG_LINK_STATUS_GOOD);
}

/* 720p60 needs 1.34 Gbit/s at 18 bpp; RBR x1 carries 1.296: nothing left. */
static void test_zero_modes_is_terminal_until_replug(void) {
	struct sim_link link = plugged("1440p144");
	set_cable(&link, DP_RATE_RBR, 1, SIM_UNCHANGED);
	const struct lg_mode *hd = mode_at(&link, 1280, 720, 60);
	// RBR x2 (24 bpp) fails -> HBR2 x1, where HBR x1 fails -> RBR x1.
	check_int_eq(sim_link_train(&link, hd), SIM_RETRY);
	check_params(&link.params, 2, DP_RATE_RBR);
	check_int_eq(sim_link_retry(&link), SIM_LOWERED);
	check_params(&link.max, 1, DP_RATE_HBR2);
	check_int_eq(sim_link_train(&link, hd), SIM_RETRY);
	check_params(&link.params, 1, DP_RATE_HBR);
	check_int_eq(sim_link_retry(&link), SIM_LOWERED);
	check_params(&link.max, 1, DP_RATE_RBR);
	check_int_eq(link.status, LG_LINK_STATUS_BAD);
	check_int_eq(probed(&link), 0);
	check_int_eq(sim_link_train(&link, hd), SIM_REJECTED);
	check_int_eq(link.status, LG_LINK_STATUS_BAD);
	set_cable(&link, 0, 0, SIM_UNCHANGED);
	check_int_eq(probed(&link), 0); // healing changes nothing
	sim_link_unplug(&link);
	sim_link_plug(&link, sim_sink_find("1440p144"));
	check_int_eq(probed(&link), 6);
	check_int_eq(link.status, LG_LINK_STATUS_GOOD);
}

/* i915 at RBR x1 with nothing to lower: retrain_disabled, no BAD, no uevent. */
static void test_rbr_x1_failure_goes_silent(void) {
	struct sim_link link = { .name = "DP-1",
		.source = { .lanes = 1, .rate_mbps = DP_RATE_RBR } };
	sim_link_plug(&link, sim_sink_find("1080p60-rbr"));
	const struct lg_mode *vga = mode_at(&link, 640, 480, 60);
	check_int_eq(sim_link_train(&link, vga), SIM_TRAINED);
	set_cable(&link, 1, 0, SIM_RETRY); // a cable that trains nothing
	check_int_eq(sim_link_retry(&link), SIM_SILENT);
	check(link.retrain_disabled);
	check(!link.trained);
	check_int_eq(link.status, LG_LINK_STATUS_GOOD); // i915 reports nothing
	check_int_eq(sim_link_train(&link, vga), SIM_SILENT);
	check_int_eq(sim_link_retry(&link), SIM_UNCHANGED);
	sim_link_unplug(&link);
	sim_link_plug(&link, sim_sink_find("1080p60-rbr"));
	check(!link.retrain_disabled);
}

/*
 * The fallback starts from what failed: 640x480 trains at RBR x1 even with
 * HBR3 x4 allowed, and two failures there leave i915 nothing to lower.
 */
static void test_small_mode_failing_at_rbr_x1_goes_silent_at_once(void) {
	struct sim_link link = plugged("4k60");
	set_cable(&link, 1, 0, SIM_UNCHANGED);
	check_int_eq(sim_link_train(&link, mode_at(&link, 640, 480, 60)), SIM_RETRY);
	check_params(&link.params, 1, DP_RATE_RBR);
	check_int_eq(link.bpp, 30);
	check_int_eq(sim_link_retry(&link), SIM_SILENT);
	check(link.retrain_disabled);
	check_params(&link.max, 4, DP_RATE_HBR3);
	check_int_eq(link.status, LG_LINK_STATUS_GOOD);
}

/* A flap's glitch: BAD without lowering; the same mode then retrains. */
static void test_glitch_reports_bad_without_lowering(void) {
	struct sim_link link = plugged("4k60");
	const struct lg_mode *uhd60 = mode_at(&link, 3840, 2160, 60);
	check(!sim_link_glitch(&link)); // not running yet
	check_int_eq(sim_link_train(&link, uhd60), SIM_TRAINED);
	check(sim_link_glitch(&link));
	check_int_eq(link.status, LG_LINK_STATUS_BAD);
	check_params(&link.max, 4, DP_RATE_HBR3);
	check_int_eq(probed(&link), 7);
	check_int_eq(sim_link_train(&link, uhd60), SIM_TRAINED);
	check_int_eq(link.status, LG_LINK_STATUS_GOOD);
}

/* The atomic check: exact sink timings that fit at 18 bpp, nothing else. */
static void test_mode_valid_needs_exact_sink_timings(void) {
	struct sim_link link = plugged("4k60");
	struct lg_mode cvt = *mode_at(&link, 3840, 2160, 60);
	check(sim_link_mode_valid(&link, &cvt));
	cvt.clock_khz = 594000; // same size and refresh, another timing
	check(!sim_link_mode_valid(&link, &cvt));
	link.reject_all = true;
	check(!sim_link_mode_valid(&link, mode_at(&link, 640, 480, 60)));
	check_int_eq(sim_link_train(&link, mode_at(&link, 640, 480, 60)), SIM_REJECTED);
	check_int_eq(link.status, LG_LINK_STATUS_BAD);
}

int main(void) {
	run_test(test_every_profile_trains_what_the_oracle_says);
	run_test(test_generated_modes_train_what_the_oracle_says);
	run_test(test_plug_starts_at_min_of_source_and_sink);
	run_test(test_4k60_10bpc_trains_hbr2_x4_at_30bpp);
	run_test(test_first_failure_retried_at_same_params_without_bad);
	run_test(test_second_failure_lowers_from_the_failed_params);
	run_test(test_heal_before_the_retry_lets_it_train);
	run_test(test_modeset_during_retry_counts_as_second_failure);
	run_test(test_same_mode_with_link_status_good_is_no_modeset);
	run_test(test_cable_degrading_under_a_running_link);
	run_test(test_heal_does_not_raise_the_link_replug_does);
	run_test(test_hbr2_x2_cable_under_4k60_walks_the_sst_ladder);
	run_test(test_sst_ladder_to_the_end_with_a_policy);
	run_test(test_mst_ladder_in_bandwidth_order);
	run_test(test_mst_uhbr_ladder_crosses_into_8b10b);
	run_test(test_sst_uhbr_sink_trains_at_most_hbr3);
	run_test(test_zero_modes_is_terminal_until_replug);
	run_test(test_rbr_x1_failure_goes_silent);
	run_test(test_small_mode_failing_at_rbr_x1_goes_silent_at_once);
	run_test(test_glitch_reports_bad_without_lowering);
	run_test(test_mode_valid_needs_exact_sink_timings);
	return test_result();
}
