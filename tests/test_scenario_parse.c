#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <linkguard/log.h>
#include <sim/dp.h>
#include <sim/scenario.h>
#include "test.h"

static char last_error[512];

static void capture_log(enum lg_log_importance importance, const char *fmt,
		va_list args) {
	if (importance == LG_ERROR) {
		vsnprintf(last_error, sizeof(last_error), fmt, args);
	}
}

static bool parse(const char *text, struct sim_scenario *scenario) {
	last_error[0] = '\0';
	return sim_scenario_parse("test.scn", text, strlen(text), scenario);
}

static void test_every_verb_parses(void) {
	struct sim_scenario s;
	check(parse(
		"# a comment\n"
		"\n"
		"0 plug DP-1 4k60 source=hbr2x2   # trailing comment\n"
		"1s cable DP-1 hbr lanes=2\n"
		"1500ms heal DP-1\n"
		"2000 swap DP-1 1440p144\n"
		"2.5s cable DP-1 any\n"
		"3s unplug DP-1\n"
		"3s reject DP-1 on\n"
		"4s end\n", &s));
	check_int_eq(s.len, 8);
	if (s.len == 7) {
		check_int_eq(s.steps[0].verb, SIM_PLUG);
		check(strcmp(s.steps[0].connector, "DP-1") == 0);
		check(strcmp(s.steps[0].sink->name, "4k60") == 0);
		check_int_eq(s.steps[0].params.lanes, 2);
		check_int_eq(s.steps[0].params.rate_mbps, DP_RATE_HBR2);
		check_int_eq(s.steps[1].at_ms, 1000);
		check_int_eq(s.steps[1].params.rate_mbps, DP_RATE_HBR);
		check_int_eq(s.steps[1].params.lanes, 2);
		check_int_eq(s.steps[2].verb, SIM_HEAL);
		check_int_eq(s.steps[2].at_ms, 1500);
		check_int_eq(s.steps[3].verb, SIM_SWAP);
		check_int_eq(s.steps[4].params.rate_mbps, 0);
		check_int_eq(s.steps[4].at_ms, 2500);
		check_int_eq(s.steps[6].verb, SIM_REJECT);
		check(s.steps[6].on);
		check_int_eq(s.steps[7].verb, SIM_END);
	}
	sim_scenario_finish(&s);
}

static void test_flap_expands_and_interleaves_in_time_order(void) {
	struct sim_scenario s;
	check(parse(
		"0 plug DP-1 4k60\n"
		"100ms flap DP-1 3 200ms\n"
		"150ms cable DP-1 hbr2\n", &s));
	check_int_eq(s.len, 5);
	if (s.len == 5) {
		check_int_eq(s.steps[1].verb, SIM_GLITCH);
		check_int_eq(s.steps[1].at_ms, 100);
		check_int_eq(s.steps[2].verb, SIM_CABLE);
		check_int_eq(s.steps[3].at_ms, 300);
		check_int_eq(s.steps[4].at_ms, 500);
	}
	sim_scenario_finish(&s);
}

static void expect_error(const char *text, const char *fragment) {
	struct sim_scenario s = {0};
	bool ok = parse(text, &s);
	check(!ok);
	if (ok) {
		sim_scenario_finish(&s);
		return;
	}
	check(s.steps == NULL && s.len == 0); // nothing half-applied
	if (strstr(last_error, fragment) == NULL) {
		fprintf(stderr, "  error was '%s', wanted '%s'\n", last_error, fragment);
		test_failures++;
	}
}

static void test_malformed_files_name_file_line_and_reason(void) {
	expect_error("0 plug DP-1 4k60\n1s jump DP-1\n", "test.scn:2: unknown verb 'jump'");
	expect_error("0 plug DP-1 8k240\n", "test.scn:1: unknown sink profile '8k240'");
	expect_error("0 plug DP-1 4k60\n1s cable DP-2 hbr\n", "test.scn:2: connector never plugged 'DP-2'");
	expect_error("soon plug DP-1 4k60\n", "test.scn:1: bad time 'soon'");
	expect_error("-5 plug DP-1 4k60\n", "bad time");
	expect_error("2s plug DP-1 4k60\n1s unplug DP-1\n", "test.scn:2: time goes backwards");
	expect_error("0 plug DP-1 4k60\n1s cable DP-1 hbr5\n", "unknown link rate 'hbr5'");
	expect_error("0 plug DP-1 4k60\n1s cable DP-1 hbr lanes=3\n", "expected lanes=1|2|4");
	expect_error("0 plug DP-1 4k60\n1s cable DP-1\n", "cable takes");
	expect_error("0 plug DP-1 4k60\n1s unplug DP-1 now\n", "unexpected argument 'now'");
	expect_error("0 plug DP-1 4k60\n1s flap DP-1 0 100ms\n", "flap takes");
	expect_error("0 plug DP-1 4k60\n1s flap DP-1 5 0\n", "flap takes");
	expect_error("0 plug DP-1 4k60 source=hbr9x4\n", "bad source limit");
	expect_error("0 plug DP-1 4k60 hbr2x4\n", "expected source=");
	expect_error("0 plug\n", "expected a connector name");
	expect_error("0 plug DP/1 4k60\n", "expected a connector name");
	expect_error("0\n", "missing verb");
	expect_error("0 plug DP-1 4k60\n1s reject DP-1 maybe\n", "reject takes on|off");
	expect_error("0 end\n1s plug DP-1 4k60\n", "test.scn:2: step after end");
	expect_error("0 plug DP-1 4k60 a b c d e f g h\n", "too many arguments");
	expect_error("1s 10s\n", "expected a connector name");

	char long_line[700];
	memset(long_line, 'x', sizeof(long_line) - 2);
	long_line[sizeof(long_line) - 2] = '\n';
	long_line[sizeof(long_line) - 1] = '\0';
	expect_error(long_line, "test.scn:1: line too long");

	struct sim_scenario s;
	const char with_nul[] = "0 plug DP-1 4k60\n0 un\0plug DP-1\n";
	last_error[0] = '\0';
	check(!sim_scenario_parse("test.scn", with_nul, sizeof(with_nul) - 1, &s));
	check(strstr(last_error, "test.scn:2: NUL byte") != NULL);
}

static void test_missing_file_is_an_error(void) {
	struct sim_scenario s;
	last_error[0] = '\0';
	check(!sim_scenario_load("/nonexistent/scenario.scn", &s));
	check(strstr(last_error, "/nonexistent/scenario.scn") != NULL);
}

static void test_empty_file_is_an_empty_scenario(void) {
	struct sim_scenario s;
	check(parse("", &s));
	check_int_eq(s.len, 0);
	sim_scenario_finish(&s);
}

int main(void) {
	lg_log_init(LG_ERROR, capture_log);
	run_test(test_every_verb_parses);
	run_test(test_flap_expands_and_interleaves_in_time_order);
	run_test(test_malformed_files_name_file_line_and_reason);
	run_test(test_missing_file_is_an_error);
	run_test(test_empty_file_is_an_empty_scenario);
	return test_result();
}
