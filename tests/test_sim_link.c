#include <sim/dp.h>
#include <sim/link.h>
#include "test.h"

static struct sim_link plugged(const char *sink) {
	struct sim_link link = {
		.name = "DP-1",
		.source = { .lanes = 4, .rate_mbps = DP_RATE_HBR3 },
	};
	sim_link_plug(&link, sim_sink_find(sink));
	return link;
}

static const struct lg_mode *preferred(const struct sim_link *link) {
	return &link->sink->modes[0];
}

static size_t probed(const struct sim_link *link) {
	struct lg_mode_list modes;
	lg_mode_list_init(&modes);
	check(sim_link_probe(link, &modes));
	size_t len = modes.len;
	lg_mode_list_finish(&modes);
	return len;
}

static void test_plug_starts_at_source_and_sink_limits(void) {
	struct sim_link link = plugged("1440p144");
	check_int_eq(link.max.lanes, 4);
	check_int_eq(link.max.rate_mbps, DP_RATE_HBR2); // the sink's limit
	check_int_eq(sim_link_train(&link, preferred(&link)), SIM_TRAINED);
	check_int_eq(link.status, LG_LINK_STATUS_GOOD);
}

/* One step down the ladder per training, BAD each time, never two. */
static void test_failed_training_lowers_once_and_reports_bad(void) {
	struct sim_link link = plugged("4k60");
	struct lg_link_params cable = { .rate_mbps = DP_RATE_HBR };
	check_int_eq(sim_link_set_cable(&link, &cable), SIM_TRAINED); // not running
	check_int_eq(sim_link_train(&link, preferred(&link)), SIM_LOWERED);
	check_int_eq(link.status, LG_LINK_STATUS_BAD);
	check_int_eq(link.max.rate_mbps, DP_RATE_HBR2);
	check_int_eq(probed(&link), 7); // 4K60 still fits HBR2 x4
	check_int_eq(sim_link_train(&link, preferred(&link)), SIM_LOWERED);
	check_int_eq(link.max.rate_mbps, DP_RATE_HBR);
	check_int_eq(probed(&link), 6); // 4K60 pruned
	check(!sim_link_mode_valid(&link, preferred(&link)));
	check_int_eq(sim_link_train(&link, &link.sink->modes[1]), SIM_TRAINED);
	check_int_eq(link.status, LG_LINK_STATUS_GOOD);
}

static void test_cable_change_breaks_a_running_link(void) {
	struct sim_link link = plugged("4k60");
	check_int_eq(sim_link_train(&link, preferred(&link)), SIM_TRAINED);
	struct lg_link_params cable = { .rate_mbps = DP_RATE_HBR2 };
	check_int_eq(sim_link_set_cable(&link, &cable), SIM_LOWERED);
	check_int_eq(link.max.rate_mbps, DP_RATE_HBR2);
	// Healing does not raise the link: only a replug does.
	struct lg_link_params any = {0};
	check_int_eq(sim_link_set_cable(&link, &any), SIM_TRAINED);
	check_int_eq(link.max.rate_mbps, DP_RATE_HBR2);
	sim_link_unplug(&link);
	sim_link_plug(&link, sim_sink_find("4k60"));
	check_int_eq(link.max.rate_mbps, DP_RATE_HBR3);
}

static void test_zero_modes_until_replug(void) {
	struct sim_link link = plugged("1440p144");
	struct lg_link_params cable = { .lanes = 1, .rate_mbps = DP_RATE_RBR };
	sim_link_set_cable(&link, &cable);
	int trainings = 0;
	while (link.max.lanes > 1 || link.max.rate_mbps > DP_RATE_RBR) {
		check_int_eq(sim_link_train(&link, &link.sink->modes[5]), SIM_LOWERED);
		if (++trainings > 12) {
			break;
		}
	}
	check_int_eq(link.status, LG_LINK_STATUS_BAD);
	check_int_eq(probed(&link), 0); // 720p60 needs 1.34 Gbit/s > 1.296
	check_int_eq(sim_link_train(&link, &link.sink->modes[5]), SIM_REJECTED);
	sim_link_unplug(&link);
	sim_link_plug(&link, sim_sink_find("1440p144"));
	check_int_eq(probed(&link), 6);
}

static void test_rbr_x1_failure_goes_silent(void) {
	struct sim_link link = plugged("1080p60-rbr");
	link.max = (struct lg_link_params){ .lanes = 1, .rate_mbps = DP_RATE_RBR };
	check_int_eq(sim_link_train(&link, &link.sink->modes[3]), SIM_TRAINED);
	const struct lg_link_params broken = { .rate_mbps = 1 }; // trains nothing
	check_int_eq(sim_link_set_cable(&link, &broken), SIM_SILENT);
	check(link.retrain_disabled);
	check_int_eq(link.status, LG_LINK_STATUS_GOOD); // i915 reports nothing
}

static void test_glitch_reports_bad_without_lowering(void) {
	struct sim_link link = plugged("4k60");
	check(!sim_link_glitch(&link)); // not running yet
	check_int_eq(sim_link_train(&link, preferred(&link)), SIM_TRAINED);
	check(sim_link_glitch(&link));
	check_int_eq(link.status, LG_LINK_STATUS_BAD);
	check_int_eq(link.max.rate_mbps, DP_RATE_HBR3);
	check_int_eq(sim_link_train(&link, preferred(&link)), SIM_TRAINED);
	check_int_eq(link.status, LG_LINK_STATUS_GOOD);
}

int main(void) {
	run_test(test_plug_starts_at_source_and_sink_limits);
	run_test(test_failed_training_lowers_once_and_reports_bad);
	run_test(test_cable_change_breaks_a_running_link);
	run_test(test_zero_modes_until_replug);
	run_test(test_rbr_x1_failure_goes_silent);
	run_test(test_glitch_reports_bad_without_lowering);
	return test_result();
}
