/*
 * The sim's kernel link model (backend/sim/link.c) on its own: i915's
 * retry-then-lower training, pruning at 18 bpp, BAD and the silent end of
 * the ladder, cable changes on a running link, glitches and replug.
 */
#include <sim/dp.h>
#include <sim/link.h>
#include "test.h"

#define ANY_CABLE ((struct lg_link_params){0})

static struct sim_link plugged(const char *sink) {
	struct sim_link link = {
		.name = "DP-1",
		.source = { .lanes = 4, .rate_mbps = DP_RATE_HBR3 },
	};
	sim_link_plug(&link, sim_sink_find(sink));
	return link;
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

static void set_cable(struct sim_link *link, uint32_t rate_mbps, uint32_t lanes,
		enum sim_train_result want) {
	const struct lg_link_params cable = { .lanes = lanes, .rate_mbps = rate_mbps };
	check_int_eq(sim_link_set_cable(link, &cable), want);
}

static void test_plug_starts_at_min_of_source_and_sink(void) {
	struct sim_link link = plugged("1440p144");
	check_int_eq(link.max.lanes, 4);
	check_int_eq(link.max.rate_mbps, DP_RATE_HBR2); // the sink's limit
	check_int_eq(link.status, LG_LINK_STATUS_GOOD);
	check(!link.trained);

	struct sim_link narrow = { .name = "DP-2",
		.source = { .lanes = 2, .rate_mbps = DP_RATE_HBR } };
	sim_link_plug(&narrow, sim_sink_find("4k60"));
	check_int_eq(narrow.max.lanes, 2); // the source's limit
	check_int_eq(narrow.max.rate_mbps, DP_RATE_HBR);
	check_int_eq(probed(&narrow), 4); // 4.32 Gbit/s: 1440p60 needs 4.347

	struct sim_link unlimited = { .name = "DP-3" };
	sim_link_plug(&unlimited, sim_sink_find("uhbr-8k"));
	check_int_eq(unlimited.max.rate_mbps, DP_RATE_UHBR20);
	check_int_eq(unlimited.max.lanes, 4);
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
	check_int_eq(link.max.rate_mbps, DP_RATE_HBR3);
	check_int_eq(link.max.lanes, 4);
	check_int_eq(probed(&link), 7);
}

/* The second consecutive failure lowers one rung, prunes, reports BAD. */
static void test_second_failure_lowers_reports_bad_and_prunes(void) {
	struct sim_link link = plugged("4k60");
	set_cable(&link, DP_RATE_HBR, 0, SIM_UNCHANGED);
	const struct lg_mode *uhd60 = mode_at(&link, 3840, 2160, 60);
	check_int_eq(sim_link_train(&link, uhd60), SIM_RETRY);
	check_int_eq(sim_link_retry(&link), SIM_LOWERED);
	check(!link.retry_pending);
	check_int_eq(link.status, LG_LINK_STATUS_BAD);
	check_int_eq(link.max.rate_mbps, DP_RATE_HBR2);
	check_int_eq(link.max.lanes, 4);
	check_int_eq(probed(&link), 7); // 4K60 still fits HBR2 x4 (12.8 <= 17.28)
	check(sim_link_mode_valid(&link, uhd60));

	// User space retrains the same mode, committing link-status GOOD.
	check_int_eq(sim_link_train(&link, uhd60), SIM_RETRY);
	check_int_eq(link.status, LG_LINK_STATUS_GOOD);
	check_int_eq(sim_link_retry(&link), SIM_LOWERED);
	check_int_eq(link.status, LG_LINK_STATUS_BAD);
	check_int_eq(link.max.rate_mbps, DP_RATE_HBR);
	check_int_eq(probed(&link), 6); // 4K60 pruned: 9.6 > 8.64 Gbit/s at 18 bpp
	check(!sim_link_mode_valid(&link, uhd60));

	const struct lg_mode *uhd30 = mode_at(&link, 3840, 2160, 30);
	check(sim_link_mode_valid(&link, uhd30));
	check_int_eq(sim_link_train(&link, uhd30), SIM_TRAINED);
	check(link.trained);
	check_int_eq(link.status, LG_LINK_STATUS_GOOD);
	check_int_eq(sim_link_retry(&link), SIM_UNCHANGED); // nothing pending
}

static void test_heal_before_the_retry_lets_it_train(void) {
	struct sim_link link = plugged("4k60");
	set_cable(&link, DP_RATE_HBR2, 0, SIM_UNCHANGED);
	check_int_eq(sim_link_train(&link, mode_at(&link, 3840, 2160, 60)), SIM_RETRY);
	set_cable(&link, 0, 0, SIM_UNCHANGED); // heal: not running, nothing trains
	check_int_eq(sim_link_retry(&link), SIM_TRAINED);
	check_int_eq(link.max.rate_mbps, DP_RATE_HBR3);
	check_int_eq(link.status, LG_LINK_STATUS_GOOD);
}

/* A user-space commit during the retry window is the second failure. */
static void test_commit_during_retry_counts_as_second_failure(void) {
	struct sim_link link = plugged("1440p144");
	set_cable(&link, DP_RATE_HBR, 0, SIM_UNCHANGED);
	const struct lg_mode *qhd144 = mode_at(&link, 2560, 1440, 144);
	check_int_eq(sim_link_train(&link, qhd144), SIM_RETRY);
	check_int_eq(sim_link_train(&link, qhd144), SIM_LOWERED);
	check_int_eq(sim_link_retry(&link), SIM_UNCHANGED); // superseded
	check_int_eq(link.max.rate_mbps, DP_RATE_HBR);
	check_int_eq(probed(&link), 4); // 1440p144, 1440p120 pruned
}

/* A link that ran fine goes BAD later: failure is asynchronous. */
static void test_cable_degrading_under_a_running_link(void) {
	struct sim_link link = plugged("4k60");
	const struct lg_mode *uhd60 = mode_at(&link, 3840, 2160, 60);
	check_int_eq(sim_link_train(&link, uhd60), SIM_TRAINED);
	set_cable(&link, DP_RATE_HBR3, 4, SIM_UNCHANGED); // still holds
	check(link.trained);
	set_cable(&link, DP_RATE_HBR2, 0, SIM_RETRY); // lost lock; kernel retrains
	check_int_eq(link.status, LG_LINK_STATUS_GOOD);
	check_int_eq(sim_link_retry(&link), SIM_LOWERED);
	check_int_eq(link.status, LG_LINK_STATUS_BAD);
	check_int_eq(link.max.rate_mbps, DP_RATE_HBR2);
	check_int_eq(sim_link_train(&link, uhd60), SIM_TRAINED);

	// Fewer lanes: the rate ladder is walked down at 4 lanes first.
	set_cable(&link, 0, 2, SIM_RETRY);
	check_int_eq(sim_link_retry(&link), SIM_LOWERED);
	check_int_eq(link.max.rate_mbps, DP_RATE_HBR);
	check_int_eq(link.max.lanes, 4);
}

/* The kernel never raises the link by itself; a replug resets it. */
static void test_heal_does_not_raise_the_link_replug_does(void) {
	struct sim_link link = plugged("4k60");
	check_int_eq(sim_link_train(&link, mode_at(&link, 3840, 2160, 60)), SIM_TRAINED);
	set_cable(&link, DP_RATE_HBR2, 0, SIM_RETRY);
	check_int_eq(sim_link_retry(&link), SIM_LOWERED);
	set_cable(&link, 0, 0, SIM_UNCHANGED);
	check_int_eq(link.max.rate_mbps, DP_RATE_HBR2);
	check_int_eq(link.status, LG_LINK_STATUS_BAD);
	sim_link_unplug(&link);
	check_int_eq(probed(&link), 0);
	check(!sim_link_glitch(&link));
	sim_link_plug(&link, sim_sink_find("4k60"));
	check_int_eq(link.max.rate_mbps, DP_RATE_HBR3);
	check_int_eq(link.max.lanes, 4);
	check_int_eq(link.status, LG_LINK_STATUS_GOOD);
	check_int_eq(probed(&link), 7);
}

/* 720p60 needs 1.34 Gbit/s at 18 bpp; RBR x1 carries 1.296: nothing left. */
static void test_zero_modes_is_terminal_until_replug(void) {
	struct sim_link link = plugged("1440p144");
	set_cable(&link, DP_RATE_RBR, 1, SIM_UNCHANGED);
	const struct lg_mode *hd = mode_at(&link, 1280, 720, 60);
	int lowered = 0;
	while (lowered < 12 && sim_link_mode_valid(&link, hd)) {
		check_int_eq(sim_link_train(&link, hd), SIM_RETRY);
		check_int_eq(sim_link_retry(&link), SIM_LOWERED);
		lowered++;
	}
	// HBR2 x4 -> HBR, RBR x4 -> HBR2, HBR, RBR x2 -> HBR2, HBR, RBR x1.
	check_int_eq(lowered, 8);
	check_int_eq(link.max.rate_mbps, DP_RATE_RBR);
	check_int_eq(link.max.lanes, 1);
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

/* A flap's glitch: BAD without lowering; the same mode then retrains. */
static void test_glitch_reports_bad_without_lowering(void) {
	struct sim_link link = plugged("4k60");
	const struct lg_mode *uhd60 = mode_at(&link, 3840, 2160, 60);
	check(!sim_link_glitch(&link)); // not running yet
	check_int_eq(sim_link_train(&link, uhd60), SIM_TRAINED);
	check(sim_link_glitch(&link));
	check_int_eq(link.status, LG_LINK_STATUS_BAD);
	check_int_eq(link.max.rate_mbps, DP_RATE_HBR3);
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

/* UHBR20 -> UHBR13.5 -> UHBR10 -> HBR3: 8K60 survives until HBR3. */
static void test_uhbr_ladder_prunes_8k_at_hbr3(void) {
	struct sim_link link = { .name = "DP-1" };
	sim_link_plug(&link, sim_sink_find("uhbr-8k"));
	const struct lg_mode *uhd8k = mode_at(&link, 7680, 4320, 60);
	set_cable(&link, DP_RATE_HBR3, 0, SIM_UNCHANGED);
	const uint32_t ladder[] = { DP_RATE_UHBR13_5, DP_RATE_UHBR10, DP_RATE_HBR3 };
	for (size_t i = 0; i < 3; i++) {
		check_int_eq(sim_link_train(&link, uhd8k), SIM_RETRY);
		check_int_eq(sim_link_retry(&link), SIM_LOWERED);
		check_int_eq(link.max.rate_mbps, ladder[i]);
	}
	check(!sim_link_mode_valid(&link, uhd8k)); // 37.2 > 25.92 Gbit/s
	check_int_eq(probed(&link), 4);
	check_int_eq(sim_link_train(&link, mode_at(&link, 7680, 4320, 30)), SIM_TRAINED);
}

int main(void) {
	run_test(test_plug_starts_at_min_of_source_and_sink);
	run_test(test_first_failure_retried_at_same_params_without_bad);
	run_test(test_second_failure_lowers_reports_bad_and_prunes);
	run_test(test_heal_before_the_retry_lets_it_train);
	run_test(test_commit_during_retry_counts_as_second_failure);
	run_test(test_cable_degrading_under_a_running_link);
	run_test(test_heal_does_not_raise_the_link_replug_does);
	run_test(test_zero_modes_is_terminal_until_replug);
	run_test(test_rbr_x1_failure_goes_silent);
	run_test(test_glitch_reports_bad_without_lowering);
	run_test(test_mode_valid_needs_exact_sink_timings);
	run_test(test_uhbr_ladder_prunes_8k_at_hbr3);
	return test_result();
}
