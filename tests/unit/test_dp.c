/*
 * DisplayPort bandwidth math (backend/dp/dp.c) against figures computed by
 * hand: payload = lanes x rate x 8/10 (or 0.9671 for UHBR, as the kernel's
 * drm_dp_bw_channel_coding_efficiency()); a mode fits when pixel clock x
 * bpp <= payload. And i915's link choice and fallback
 * ladders (backend/dp/i915.c) against tables derived by hand from Linux
 * 6.12's intel_dp_compute_link_config_wide(),
 * reduce_link_params_in_rate_lane_order() and reduce_link_params_in_bw_order(),
 * the bandwidth order also against a sort computed here. A sink's DPCD
 * capabilities (backend/dp/caps.c) against the registers' definitions.
 */
#include <stdlib.h>
#include <string.h>
#include <dp/caps.h>
#include <dp/dp.h>
#include <dp/i915.h>
#include "test.h"

#define MODE(w, h, r, c) { .width = w, .height = h, .refresh_mhz = r, .clock_khz = c }

static const struct lg_mode uhd60 = MODE(3840, 2160, 60000, 533250);
static const struct lg_mode uhd30 = MODE(3840, 2160, 30000, 297000);
static const struct lg_mode qhd60 = MODE(2560, 1440, 59951, 241500);

static const struct lg_link_params hbr3_x2 = { .lanes = 2, .rate_mbps = DP_RATE_HBR3 };
static const struct lg_link_params hbr2_x4 = { .lanes = 4, .rate_mbps = DP_RATE_HBR2 };
static const struct lg_link_params hbr_x4 = { .lanes = 4, .rate_mbps = DP_RATE_HBR };

static void test_payload_uses_channel_coding(void) {
	// 4 x 5.4 Gbit/s at 8b/10b: 17.28 Gbit/s.
	check_int_eq(dp_link_payload_kbps(&hbr2_x4), 17280000);
	// 1 x 10 Gbit/s at 128b/132b: 9.671 Gbit/s.
	struct lg_link_params uhbr10 = { .lanes = 1, .rate_mbps = DP_RATE_UHBR10 };
	check_int_eq(dp_link_payload_kbps(&uhbr10), 9671000);
}

/* 533.25 MHz x 24 bpp = 12.798 Gbit/s; x 30 = 15.9975. */
static void test_4k60_fits_hbr2_x4_and_hbr3_x2_at_24bpp(void) {
	check(dp_mode_fits(&uhd60, 24, &hbr2_x4));
	check(dp_mode_fits(&uhd60, 24, &hbr3_x2));
	check(dp_mode_fits(&uhd60, 30, &hbr2_x4)); // 17.28
	check(!dp_mode_fits(&uhd60, 30, &hbr3_x2)); // 12.96
}

/* HBR x4 carries 8.64 Gbit/s; 4K60 needs 9.5985 even at 18 bpp. */
static void test_4k60_does_not_fit_hbr_x4_even_at_18bpp(void) {
	check(!dp_mode_fits(&uhd60, DP_MIN_BPP, &hbr_x4));
}

static void test_4k30_and_1440p60_fit_hbr_x4(void) {
	check(dp_mode_fits(&uhd30, 24, &hbr_x4)); // 7.128 Gbit/s
	check(dp_mode_fits(&qhd60, 24, &hbr_x4)); // 5.796 Gbit/s
	check(dp_mode_fits(&uhd30, 27, &hbr_x4)); // 8.019 <= 8.64
	check(!dp_mode_fits(&uhd30, 30, &hbr_x4)); // 8.91
}

/* i915 lists a mode when it fits at 6 bpc: 18 bpp. */
static void test_mode_valid_at_18bpp(void) {
	// 4K60 at 18 bpp: 9.5985 Gbit/s; HBR x4 8.64, HBR2 x2 8.64, HBR3 x2 12.96.
	check(!dp_mode_valid(&uhd60, &hbr_x4));
	struct lg_link_params hbr2_x2 = { .lanes = 2, .rate_mbps = DP_RATE_HBR2 };
	check(!dp_mode_valid(&uhd60, &hbr2_x2));
	check(dp_mode_valid(&uhd60, &hbr3_x2));
	// Exactly at the limit fits: 480000 kHz x 18 = 8.64 Gbit/s.
	struct lg_mode edge = MODE(3000, 2000, 60000, 480000);
	check(dp_mode_valid(&edge, &hbr_x4));
	edge.clock_khz++;
	check(!dp_mode_valid(&edge, &hbr_x4));
}

/* 128b/132b carries 96.71 %, 8b/10b 80 %: UHBR10 x4 beats HBR3 x4 by 49.2 %. */
static void test_uhbr_efficiency(void) {
	struct lg_link_params uhbr20_x4 = { .lanes = 4, .rate_mbps = DP_RATE_UHBR20 };
	struct lg_link_params uhbr13_x2 = { .lanes = 2, .rate_mbps = DP_RATE_UHBR13_5 };
	struct lg_link_params hbr3_x4 = { .lanes = 4, .rate_mbps = DP_RATE_HBR3 };
	check_int_eq(dp_link_payload_kbps(&uhbr20_x4), 77368000); // 80000000 * 0.9671
	check_int_eq(dp_link_payload_kbps(&uhbr13_x2), 26111700); // 27000000 * 0.9671
	check_int_eq(dp_link_payload_kbps(&hbr3_x4), 25920000);
	// 8K60 (CVT-RB2, 2068.301 MHz) at 30 bpp: 62.05 Gbit/s.
	struct lg_mode uhd8k = MODE(7680, 4320, 60000, 2068301);
	check(dp_mode_fits(&uhd8k, 30, &uhbr20_x4));
	check(!dp_mode_fits(&uhd8k, DP_MIN_BPP, &hbr3_x4)); // 37.23 > 25.92
	// 4K60 fits UHBR10 x1 (9.671 Gbit/s) only at 6 bpc: 9.5985 at 18 bpp.
	struct lg_link_params uhbr10_x1 = { .lanes = 1, .rate_mbps = DP_RATE_UHBR10 };
	check(dp_mode_fits(&uhd60, 18, &uhbr10_x1));
	check(!dp_mode_fits(&uhd60, 24, &uhbr10_x1));
	check(dp_mode_fits(&uhd60, 30, &uhbr13_x2));
}

static void test_rate_table_ascends_and_marks_uhbr(void) {
	const uint32_t want[] = { DP_RATE_RBR, DP_RATE_HBR, DP_RATE_HBR2, DP_RATE_HBR3,
		DP_RATE_UHBR10, DP_RATE_UHBR13_5, DP_RATE_UHBR20 };
	check_int_eq(dp_rate_count(), 7);
	for (size_t i = 0; i < 7; i++) {
		check_int_eq(dp_rate(i), want[i]);
		check(dp_rate_is_uhbr(want[i]) == (i >= 4));
	}
	check_int_eq(dp_rate(7), 0);
}

#define LINK(lanes, rate) ((struct lg_link_params){ (lanes), DP_RATE_##rate })

static void check_choice(bool mst, const struct lg_mode *mode, uint32_t max_bpc,
		struct lg_link_params max, struct lg_link_params want, uint32_t want_bpp) {
	struct lg_link_params got = {0};
	uint32_t bpp = 0;
	bool ok = mst ? i915_choose_mst(mode, max_bpc, &max, &got, &bpp) :
		i915_choose_sst(mode, max_bpc, dp_rates_standard(), &max, &got, &bpp);
	check(ok);
	if (got.lanes != want.lanes || got.rate_mbps != want.rate_mbps || bpp != want_bpp) {
		fprintf(stderr, "  %u kHz within %ux%u: got %ux%u at %u bpp, want %ux%u at %u\n",
			mode->clock_khz, max.lanes, max.rate_mbps, got.lanes, got.rate_mbps,
			bpp, want.lanes, want.rate_mbps, want_bpp);
		test_failures++;
	}
}

/* The example: 2,160,000 kB/s >= 533,250 x 30 / 8, so HBR2 x4. */
static void test_sst_4k60_10bpc_trains_hbr2_x4_at_30bpp(void) {
	check_choice(false, &uhd60, 10, LINK(4, HBR3), LINK(4, HBR2), 30);
	check_choice(false, &uhd60, 10, LINK(4, UHBR20), LINK(4, HBR2), 30);
	// Within HBR3 x2 nothing carries 30 bpp; 24 bpp fits HBR3 x2 exactly.
	check_choice(false, &uhd60, 10, LINK(2, HBR3), LINK(2, HBR3), 24);
	check_choice(false, &uhd60, 8, LINK(4, HBR3), LINK(4, HBR2), 24);
}

/* The lowest rate wins over fewer lanes: RBR x4 before HBR x2. */
static void test_sst_lowest_rate_before_fewest_lanes(void) {
	const struct lg_mode fhd60 = MODE(1920, 1080, 60000, 148500); // 4.455 Gbit/s at 30
	check_choice(false, &fhd60, 10, LINK(4, HBR3), LINK(4, RBR), 30);
	check_choice(false, &fhd60, 10, LINK(2, HBR3), LINK(2, HBR2), 30);
	const struct lg_mode hd60 = MODE(1280, 720, 60000, 74250); // 2.2275 at 30
	check_choice(false, &hd60, 10, LINK(4, HBR3), LINK(2, RBR), 30);
	check_choice(false, &hd60, 10, LINK(1, HBR3), LINK(1, HBR2), 30);
}

/*
 * bpp steps by 6 from max_bpc * 3: 4K30 within HBR x4 would fit 27 bpp
 * (8.019 <= 8.64) but runs at 24; 7 bpc starts at 18 (21 rounded down).
 */
static void test_sst_bpp_steps_by_six(void) {
	check_choice(false, &uhd30, 10, LINK(4, HBR), LINK(4, HBR), 24);
	check_choice(false, &uhd30, 12, LINK(4, HBR3), LINK(4, HBR2), 36);
	check_choice(false, &uhd30, 7, LINK(4, HBR3), LINK(4, HBR), 18);
	struct lg_link_params got;
	uint32_t bpp;
	check(!i915_choose_sst(&uhd60, 10, dp_rates_standard(), &hbr_x4, &got, &bpp)); // 9.5985 > 8.64
	check(!i915_choose_sst(&uhd60, 5, dp_rates_standard(), &hbr2_x4, &got, &bpp)); // below 18 bpp
}

/* 6.12 caps SST at HBR3 ("128b/132b SST support missing"). */
static void test_sst_never_trains_uhbr(void) {
	const struct lg_mode uhd8k30 = MODE(7680, 4320, 30000, 1019897);
	const struct lg_mode uhd120 = MODE(3840, 2160, 120000, 1075805);
	const struct lg_mode uhd8k60 = MODE(7680, 4320, 60000, 2068301);
	check_choice(false, &uhd8k30, 10, LINK(4, UHBR20), LINK(4, HBR3), 24);
	check_choice(false, &uhd120, 10, LINK(4, UHBR20), LINK(4, HBR3), 24);
	struct lg_link_params got;
	uint32_t bpp;
	check(!i915_choose_sst(&uhd8k60, 10, dp_rates_standard(), &LINK(4, UHBR20), &got, &bpp));
	check(i915_choose_mst(&uhd8k60, 10, &LINK(4, UHBR20), &got, &bpp));
}

/* MST always trains the maximum, at 8 bpc at most. */
static void test_mst_trains_the_maximum_at_8bpc_at_most(void) {
	check_choice(true, &uhd60, 10, LINK(4, HBR3), LINK(4, HBR3), 24);
	check_choice(true, &qhd60, 10, LINK(4, UHBR20), LINK(4, UHBR20), 24);
	check_choice(true, &uhd60, 10, LINK(2, HBR3), LINK(2, HBR3), 24);
	check_choice(true, &uhd60, 10, LINK(4, HBR2), LINK(4, HBR2), 24);
	check_choice(true, &uhd60, 10, LINK(1, UHBR10), LINK(1, UHBR10), 18);
	check_choice(true, &uhd30, 6, LINK(4, HBR3), LINK(4, HBR3), 18);
	struct lg_link_params got;
	uint32_t bpp;
	check(!i915_choose_mst(&uhd60, 10, &hbr_x4, &got, &bpp));
}

/*
 * Lowers from "from" rung by rung and compares with want; with to_the_end,
 * nothing may be left below the last rung (and the output is untouched).
 */
static void check_ladder(bool mst, struct lg_link_params from, struct lg_link_params common,
		const struct lg_link_params *want, size_t len, bool to_the_end) {
	struct lg_link_params failed = from;
	for (size_t i = 0; i < len; i++) {
		struct lg_link_params next = {0};
		bool ok = mst ? i915_reduce_mst(&failed, &common, &next) :
			i915_reduce_sst(&failed, common.rate_mbps, &next);
		if (!ok || next.lanes != want[i].lanes || next.rate_mbps != want[i].rate_mbps) {
			fprintf(stderr, "  rung %zu below %ux%u: got %s%ux%u, want %ux%u\n", i,
				failed.lanes, failed.rate_mbps, ok ? "" : "nothing ",
				next.lanes, next.rate_mbps, want[i].lanes, want[i].rate_mbps);
			test_failures++;
			return;
		}
		failed = next;
	}
	if (!to_the_end) {
		return;
	}
	struct lg_link_params untouched = LINK(4, UHBR20);
	check(!(mst ? i915_reduce_mst(&failed, &common, &untouched) :
		i915_reduce_sst(&failed, common.rate_mbps, &untouched)));
	check_int_eq(untouched.rate_mbps, DP_RATE_UHBR20);
}

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* SST: a lower rate at the same lanes; at RBR, the top rate and half the lanes. */
static void test_sst_ladder_rate_then_lanes(void) {
	const struct lg_link_params ladder[] = {
		LINK(4, HBR2), LINK(4, HBR), LINK(4, RBR),
		LINK(2, HBR3), LINK(2, HBR2), LINK(2, HBR), LINK(2, RBR),
		LINK(1, HBR3), LINK(1, HBR2), LINK(1, HBR), LINK(1, RBR),
	};
	check_ladder(false, LINK(4, HBR3), LINK(4, HBR3), ladder, N(ladder), true);
	// From the parameters that failed, not from the maximum.
	check_ladder(false, LINK(4, HBR2), LINK(4, HBR3), ladder + 1, N(ladder) - 1, true);
	// An HBR2 sink: back at HBR2 when the lanes halve.
	const struct lg_link_params hbr2_sink[] = { LINK(2, HBR2), LINK(2, HBR), LINK(2, RBR),
		LINK(1, HBR2), LINK(1, HBR), LINK(1, RBR) };
	check_ladder(false, LINK(4, RBR), LINK(4, HBR2), hbr2_sink, N(hbr2_sink), true);
	// An RBR-only panel halves its lanes at once.
	check_ladder(false, LINK(4, RBR), LINK(4, RBR),
		(const struct lg_link_params[]){ LINK(2, RBR), LINK(1, RBR) }, 2, true);
	// A mode that trained at RBR x1 has nothing below it, whatever the maximum.
	check_ladder(false, LINK(1, RBR), LINK(4, HBR3), NULL, 0, true);
}

/*
 * SST never steps from UHBR10 down to HBR3 (reduce_link_rate()); the lanes
 * halve instead, back at UHBR20. From 8b/10b the halving returns to the
 * max common rate, which may be UHBR.
 */
static void test_sst_ladder_keeps_uhbr_and_8b10b_apart(void) {
	const struct lg_link_params uhbr[] = {
		LINK(4, UHBR13_5), LINK(4, UHBR10),
		LINK(2, UHBR20), LINK(2, UHBR13_5), LINK(2, UHBR10),
		LINK(1, UHBR20), LINK(1, UHBR13_5), LINK(1, UHBR10),
	};
	check_ladder(false, LINK(4, UHBR20), LINK(4, UHBR20), uhbr, N(uhbr), true);
	const struct lg_link_params from_hbr3[] = {
		LINK(4, HBR2), LINK(4, HBR), LINK(4, RBR), LINK(2, UHBR20), LINK(2, UHBR13_5),
	};
	check_ladder(false, LINK(4, HBR3), LINK(4, UHBR20), from_hbr3, N(from_hbr3), false);
}

/*
 * MST, HBR3 x4 sink: every common (rate, lanes) by payload in kB/s, ties by
 * rate: RBRx1 162000, HBRx1 270000, RBRx2 324000, HBRx2 540000, HBR2x1
 * 540000, RBRx4 648000, HBR3x1 810000, HBRx4 1080000, HBR2x2 1080000,
 * HBR3x2 1620000, HBR2x4 2160000, HBR3x4 3240000.
 */
static void test_mst_ladder_in_bandwidth_order(void) {
	const struct lg_link_params ladder[] = {
		LINK(4, HBR2), LINK(2, HBR3), LINK(2, HBR2), LINK(4, HBR), LINK(1, HBR3),
		LINK(4, RBR), LINK(1, HBR2), LINK(2, HBR), LINK(2, RBR), LINK(1, HBR),
		LINK(1, RBR),
	};
	check_ladder(true, LINK(4, HBR3), LINK(4, HBR3), ladder, N(ladder), true);
	// Two lanes at most: the four-lane rungs are not there.
	const struct lg_link_params two_lanes[] = { LINK(2, HBR2), LINK(1, HBR3),
		LINK(1, HBR2), LINK(2, HBR), LINK(2, RBR), LINK(1, HBR), LINK(1, RBR) };
	check_ladder(true, LINK(2, HBR3), LINK(2, HBR3), two_lanes, N(two_lanes), true);
}

/*
 * MST, UHBR20 x4 sink (128b/132b payloads at 96.71 %: UHBR10 x1 1208875
 * kB/s, UHBR13.5 x1 1631981, UHBR10 x2 = UHBR20 x1 2417750, UHBR13.5 x2
 * 3263962, UHBR10 x4 = UHBR20 x2 4835500, UHBR13.5 x4 6527925, UHBR20 x4
 * 9671000): 6.12 walks across UHBR and 8b/10b in one order.
 */
static void test_mst_ladder_crosses_uhbr_and_8b10b(void) {
	const struct lg_link_params ladder[] = {
		LINK(4, UHBR13_5), LINK(2, UHBR20), LINK(4, UHBR10), LINK(2, UHBR13_5),
		LINK(4, HBR3), LINK(1, UHBR20), LINK(2, UHBR10), LINK(4, HBR2),
		LINK(1, UHBR13_5), LINK(2, HBR3), LINK(1, UHBR10), LINK(2, HBR2),
		LINK(4, HBR), LINK(1, HBR3), LINK(4, RBR), LINK(1, HBR2), LINK(2, HBR),
		LINK(2, RBR), LINK(1, HBR), LINK(1, RBR),
	};
	check_ladder(true, LINK(4, UHBR20), LINK(4, UHBR20), ladder, N(ladder), true);
}

/* A payload computed here, in bit/s: lanes x rate x 8/10 or x 0.9671. */
static double payload_bps(const struct lg_link_params *link) {
	double coding = link->rate_mbps >= DP_RATE_UHBR10 ? 0.9671 : 0.8;
	return link->lanes * (double)link->rate_mbps * 1e6 * coding;
}

static int compare_bw(const void *a, const void *b) {
	const struct lg_link_params *la = a, *lb = b;
	double pa = payload_bps(la), pb = payload_bps(lb);
	if (pa != pb) {
		return pa < pb ? -1 : 1;
	}
	return (la->rate_mbps > lb->rate_mbps) - (la->rate_mbps < lb->rate_mbps);
}

/*
 * For every common maximum (each rate, 1, 2 or 4 lanes) and every config
 * within it, the MST fallback is the entry just below in a list sorted here.
 */
static void test_mst_ladder_matches_a_sorted_list(void) {
	const uint32_t rates[] = { DP_RATE_RBR, DP_RATE_HBR, DP_RATE_HBR2, DP_RATE_HBR3,
		DP_RATE_UHBR10, DP_RATE_UHBR13_5, DP_RATE_UHBR20 };
	size_t checked = 0;
	for (size_t top = 0; top < N(rates); top++) {
		for (uint32_t max_lanes = 1; max_lanes <= 4; max_lanes *= 2) {
			struct lg_link_params configs[21];
			size_t len = 0;
			for (size_t r = 0; r <= top; r++) {
				for (uint32_t lanes = 1; lanes <= max_lanes; lanes *= 2) {
					configs[len++] =
						(struct lg_link_params){ lanes, rates[r] };
				}
			}
			qsort(configs, len, sizeof(configs[0]), compare_bw);
			const struct lg_link_params common = { max_lanes, rates[top] };
			for (size_t i = 0; i < len; i++) {
				struct lg_link_params next = {0};
				bool ok = i915_reduce_mst(&configs[i], &common, &next);
				check(ok == (i > 0));
				if (ok && i > 0) {
					check_int_eq(next.lanes, configs[i - 1].lanes);
					check_int_eq(next.rate_mbps, configs[i - 1].rate_mbps);
				}
				checked++;
			}
		}
	}
	// 1 + 2 + ... + 7 rate lists, with 1, 2 and 3 lane counts each.
	check_int_eq(checked, 28 * (1 + 2 + 3));
}

static void test_rate_names_round_trip(void) {
	uint32_t rate = 0;
	check(dp_rate_parse("hbr2", &rate) && rate == DP_RATE_HBR2);
	check(dp_rate_parse("UHBR13.5", &rate) && rate == DP_RATE_UHBR13_5);
	check(!dp_rate_parse("hbr4", &rate));
	check(!dp_rate_parse("", &rate));
	check(strcmp(dp_rate_name(DP_RATE_RBR), "rbr") == 0);
	check(strcmp(dp_rate_name(1234), "?") == 0);
	check(strcmp(dp_rate_name(DP_RATE_UHBR13_5), "uhbr13.5") == 0);
	const char *names[] = { "rbr", "hbr", "hbr2", "hbr3", "uhbr10", "uhbr13.5", "uhbr20" };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		check(dp_rate_parse(names[i], &rate) && strcmp(dp_rate_name(rate), names[i]) == 0);
	}
	char buf[32];
	struct lg_link_params link = { .lanes = 4, .rate_mbps = DP_RATE_HBR2 };
	check(strcmp(dp_link_format(&link, buf, sizeof(buf)), "HBR2 x4") == 0);
	link = (struct lg_link_params){ .lanes = 1, .rate_mbps = DP_RATE_UHBR13_5 };
	check(strcmp(dp_link_format(&link, buf, sizeof(buf)), "UHBR13.5 x1") == 0);
	link = (struct lg_link_params){ .rate_mbps = DP_RATE_HBR }; // a cable's limit
	check(strcmp(dp_link_format(&link, buf, sizeof(buf)), "HBR") == 0);
}

static void check_rates(const struct dp_rates *rates, const uint32_t *want,
		size_t n) {
	check_int_eq(rates->len, n);
	for (size_t i = 0; i < n && i < rates->len; i++) {
		check_int_eq(rates->mbps[i], want[i]);
	}
}

/* A DP 1.2 sink: MAX_LINK_RATE 0x14 (HBR2), four lanes with enhanced framing. */
static void test_caps_standard_rates_up_to_the_max(void) {
	struct dpcd_caps_regs regs = {0};
	regs.base[0x00] = 0x12;
	regs.base[0x01] = 0x14;
	regs.base[0x02] = 0x84;
	struct dp_sink_caps caps;
	check(!dp_caps_want_ext(&regs));
	check(dp_caps_decode(&regs, &caps));
	check_int_eq(caps.max_lanes, 4);
	check_rates(&caps.rates, (const uint32_t[]){ 1620, 2700, 5400 }, 3);
}

/*
 * A DP 1.4 sink says HBR2 in its base field and HBR3, with 128b/132b
 * (UHBR10 and UHBR20), in the extended one, which replaces it.
 */
static void test_caps_extended_field_replaces_the_base(void) {
	struct dpcd_caps_regs regs = {0};
	regs.base[0x00] = 0x12;
	regs.base[0x01] = 0x14;
	regs.base[0x02] = 0x82;
	regs.base[0x0e] = 0x80;
	check(dp_caps_want_ext(&regs));
	regs.has_ext = true;
	regs.ext[0x00] = 0x14;
	regs.ext[0x01] = 0x1e;
	regs.ext[0x02] = 0x84;
	regs.ext[0x06] = 0x03; // 8b/10b and 128b/132b
	regs.ext[0x15] = 0x03; // UHBR10, UHBR20
	struct dp_sink_caps caps;
	check(dp_caps_decode(&regs, &caps));
	check_int_eq(caps.max_lanes, 4);
	check_rates(&caps.rates, (const uint32_t[]){ 1620, 2700, 5400, 8100,
		10000, 20000 }, 6);
	// The extended field not read: the base one.
	regs.has_ext = false;
	check(dp_caps_decode(&regs, &caps));
	check_int_eq(caps.max_lanes, 2);
	check_rates(&caps.rates, (const uint32_t[]){ 1620, 2700, 5400 }, 3);
}

/*
 * An eDP 1.4 panel lists its rates in 200 kHz units (8100 is 1.62 Gbit/s):
 * those, not the standard ones, and i915 picks the lowest that carries.
 */
static void test_caps_edp_rate_table(void) {
	struct dpcd_caps_regs regs = {0};
	regs.base[0x00] = 0x14;
	regs.base[0x02] = 0x82;
	const uint16_t table[] = { 8100, 10800, 13500, 16200 };
	for (size_t i = 0; i < 4; i++) {
		regs.base[0x10 + 2 * i] = table[i] & 0xff;
		regs.base[0x11 + 2 * i] = table[i] >> 8;
	}
	struct dp_sink_caps caps;
	check(dp_caps_decode(&regs, &caps));
	check_int_eq(caps.max_lanes, 2);
	check_rates(&caps.rates, (const uint32_t[]){ 1620, 2160, 2700, 3240 }, 4);
	// 1920x1080@60 (148.5 MHz) at 24 bpp: 3.564 Gbit/s; 2160 x2 carries
	// 3.456, 2700 x2 4.32.
	const struct lg_mode fhd = MODE(1920, 1080, 60000, 148500);
	struct lg_link_params got;
	uint32_t bpp;
	check(i915_choose_sst(&fhd, 8, &caps.rates,
		&(struct lg_link_params){ 2, 3240 }, &got, &bpp));
	check_int_eq(got.rate_mbps, 2700);
	check_int_eq(got.lanes, 2);
	check_int_eq(bpp, 24);
	char buf[32];
	check(strcmp(dp_link_format(&(struct lg_link_params){ 2, 2160 }, buf,
		sizeof(buf)), "2160 Mbit/s x2") == 0);
	// Out of order (8000 after 8100): garbage.
	regs.base[0x12] = 8000 & 0xff;
	regs.base[0x13] = 8000 >> 8;
	check(!dp_caps_decode(&regs, &caps));
	// The table ends at its first zero.
	regs.base[0x12] = 0;
	regs.base[0x13] = 0;
	check(dp_caps_decode(&regs, &caps));
	check_rates(&caps.rates, (const uint32_t[]){ 1620 }, 1);
}

/* Contents no sink reports: no lanes, three lanes, no rate. */
static void test_caps_garbage(void) {
	const uint8_t bad[][3] = {
		{ 0x12, 0x14, 0x80 },
		{ 0x12, 0x14, 0x83 },
		{ 0x12, 0x14, 0x08 },
		{ 0x12, 0x00, 0x84 },
		{ 0x12, 0x05, 0x84 }, // below RBR
		{ 0x00, 0x00, 0x00 }, // a sink asleep
		{ 0xff, 0xff, 0xff },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct dpcd_caps_regs regs = {0};
		memcpy(regs.base, bad[i], 3);
		struct dp_sink_caps caps;
		check(!dp_caps_decode(&regs, &caps));
	}
}

int main(void) {
	run_test(test_payload_uses_channel_coding);
	run_test(test_4k60_fits_hbr2_x4_and_hbr3_x2_at_24bpp);
	run_test(test_4k60_does_not_fit_hbr_x4_even_at_18bpp);
	run_test(test_4k30_and_1440p60_fit_hbr_x4);
	run_test(test_mode_valid_at_18bpp);
	run_test(test_uhbr_efficiency);
	run_test(test_rate_table_ascends_and_marks_uhbr);
	run_test(test_sst_4k60_10bpc_trains_hbr2_x4_at_30bpp);
	run_test(test_sst_lowest_rate_before_fewest_lanes);
	run_test(test_sst_bpp_steps_by_six);
	run_test(test_sst_never_trains_uhbr);
	run_test(test_mst_trains_the_maximum_at_8bpc_at_most);
	run_test(test_sst_ladder_rate_then_lanes);
	run_test(test_sst_ladder_keeps_uhbr_and_8b10b_apart);
	run_test(test_mst_ladder_in_bandwidth_order);
	run_test(test_mst_ladder_crosses_uhbr_and_8b10b);
	run_test(test_mst_ladder_matches_a_sorted_list);
	run_test(test_rate_names_round_trip);
	run_test(test_caps_standard_rates_up_to_the_max);
	run_test(test_caps_extended_field_replaces_the_base);
	run_test(test_caps_edp_rate_table);
	run_test(test_caps_garbage);
	return test_result();
}
