/*
 * DisplayPort bandwidth math (backend/sim/dp.c) against figures computed by
 * hand: payload = lanes x rate x 8/10 (or 0.9671 for UHBR, as drm_dp_bw_channel_coding_efficiency()); a mode fits
 * when pixel clock x bpp <= payload.
 */
#include <sim/dp.h>
#include <string.h>
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

/* 533.25 MHz x 24 bpp = 12.798 Gbit/s. */
static void test_4k60_fits_hbr2_x4_and_hbr3_x2_at_24bpp(void) {
	check(dp_mode_fits(&uhd60, 24, &hbr2_x4));
	check(dp_mode_fits(&uhd60, 24, &hbr3_x2));
	check_int_eq(dp_max_bpp(&uhd60, 10, &hbr2_x4), 30);
	check_int_eq(dp_max_bpp(&uhd60, 10, &hbr3_x2), 24);
}

/* HBR x4 carries 8.64 Gbit/s; 4K60 needs 9.5985 even at 18 bpp. */
static void test_4k60_does_not_fit_hbr_x4_even_at_18bpp(void) {
	check(!dp_mode_fits(&uhd60, DP_MIN_BPP, &hbr_x4));
	check_int_eq(dp_max_bpp(&uhd60, 10, &hbr_x4), 0);
}

static void test_4k30_and_1440p60_fit_hbr_x4(void) {
	check(dp_mode_fits(&uhd30, 24, &hbr_x4)); // 7.128 Gbit/s
	check(dp_mode_fits(&qhd60, 24, &hbr_x4)); // 5.796 Gbit/s
	check_int_eq(dp_max_bpp(&uhd30, 10, &hbr_x4), 27); // 8.019 <= 8.64 < 8.91
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
	check_int_eq(dp_max_bpp(&uhd8k, 10, &uhbr20_x4), 30);
	check_int_eq(dp_max_bpp(&uhd8k, 10, &hbr3_x4), 0);
	// 4K60 fits UHBR10 x1 (9.671 Gbit/s) only at 6 bpc: 9.5985 at 18 bpp.
	struct lg_link_params uhbr10_x1 = { .lanes = 1, .rate_mbps = DP_RATE_UHBR10 };
	check_int_eq(dp_max_bpp(&uhd60, 10, &uhbr10_x1), 18);
	check_int_eq(dp_max_bpp(&uhd60, 10, &uhbr13_x2), 30);
}

static void test_fallback_ladder_as_i915(void) {
	const struct lg_link_params ladder[] = {
		{ 4, DP_RATE_HBR3 }, { 4, DP_RATE_HBR2 }, { 4, DP_RATE_HBR }, { 4, DP_RATE_RBR },
		{ 2, DP_RATE_HBR3 }, { 2, DP_RATE_HBR2 }, { 2, DP_RATE_HBR }, { 2, DP_RATE_RBR },
		{ 1, DP_RATE_HBR3 }, { 1, DP_RATE_HBR2 }, { 1, DP_RATE_HBR }, { 1, DP_RATE_RBR },
	};
	struct lg_link_params link = ladder[0];
	for (size_t i = 1; i < sizeof(ladder) / sizeof(ladder[0]); i++) {
		check(dp_link_lower(&link, DP_RATE_HBR3));
		check_int_eq(link.lanes, ladder[i].lanes);
		check_int_eq(link.rate_mbps, ladder[i].rate_mbps);
	}
	check(!dp_link_lower(&link, DP_RATE_HBR3)); // RBR x1: nothing left
	check_int_eq(link.lanes, 1);
	check_int_eq(link.rate_mbps, DP_RATE_RBR);
}

/* At the lowest rate the lanes halve and the rate returns to the cap. */
static void test_fallback_returns_to_the_capped_rate(void) {
	struct lg_link_params link = { .lanes = 4, .rate_mbps = DP_RATE_RBR };
	check(dp_link_lower(&link, DP_RATE_HBR2)); // e.g. a HBR2 sink
	check_int_eq(link.lanes, 2);
	check_int_eq(link.rate_mbps, DP_RATE_HBR2);
	link = (struct lg_link_params){ .lanes = 2, .rate_mbps = DP_RATE_RBR };
	check(dp_link_lower(&link, DP_RATE_RBR)); // an RBR-only panel
	check_int_eq(link.lanes, 1);
	check_int_eq(link.rate_mbps, DP_RATE_RBR);
	check(!dp_link_lower(&link, DP_RATE_RBR));
}

static void test_uhbr_lowers_into_hbr3(void) {
	struct lg_link_params link = { .lanes = 4, .rate_mbps = DP_RATE_UHBR10 };
	check(dp_link_lower(&link, DP_RATE_UHBR10));
	check_int_eq(link.rate_mbps, DP_RATE_HBR3);
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

int main(void) {
	run_test(test_payload_uses_channel_coding);
	run_test(test_4k60_fits_hbr2_x4_and_hbr3_x2_at_24bpp);
	run_test(test_4k60_does_not_fit_hbr_x4_even_at_18bpp);
	run_test(test_4k30_and_1440p60_fit_hbr_x4);
	run_test(test_mode_valid_at_18bpp);
	run_test(test_uhbr_efficiency);
	run_test(test_fallback_ladder_as_i915);
	run_test(test_fallback_returns_to_the_capped_rate);
	run_test(test_uhbr_lowers_into_hbr3);
	run_test(test_rate_names_round_trip);
	return test_result();
}
