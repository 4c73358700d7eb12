/*
 * Scenario files (backend/sim/scenario.c): every verb and time format
 * parses; every kind of malformed file is rejected whole with
 * "file:line: reason"; and lg_sim_load_scenario() schedules nothing of a
 * rejected file (checked on a real event loop with the headless backend).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wayland-server-core.h>
#include <wlr/backend.h>
#include <wlr/backend/headless.h>
#include <wlr/util/log.h>
#include <linkguard/backend.h>
#include <linkguard/log.h>
#include <linkguard/manager.h>
#include <linkguard/sim.h>
#include <dp/dp.h>
#include <sim/scenario.h>
#include "test.h"

static char last_error[512];
static bool logged_mst_plug;

static void capture_log(enum lg_log_importance importance, const char *fmt,
		va_list args) {
	char line[512];
	vsnprintf(line, sizeof(line), fmt, args);
	if (importance == LG_ERROR) {
		snprintf(last_error, sizeof(last_error), "%s", line);
	}
	if (strstr(line, "sim: DP-1: plug ") != NULL &&
			strstr(line, " behind an MST branch; link up to HBR3 x4") != NULL) {
		logged_mst_plug = true;
	}
}

static bool parse(const char *text, struct sim_scenario *scenario) {
	last_error[0] = '\0';
	return sim_scenario_parse("test.scn", text, strlen(text), scenario);
}

static void check_error(const char *fragment) {
	if (strstr(last_error, fragment) == NULL) {
		fprintf(stderr, "  error was '%s', wanted '%s'\n", last_error, fragment);
		test_failures++;
	}
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
		"\t4s\tend\r\n", &s));
	check_int_eq(s.len, 8);
	if (s.len == 8) {
		check_int_eq(s.steps[0].verb, SIM_PLUG);
		check(strcmp(s.steps[0].connector, "DP-1") == 0);
		check(strcmp(s.steps[0].sink->name, "4k60") == 0);
		check_int_eq(s.steps[0].params.lanes, 2);
		check_int_eq(s.steps[0].params.rate_mbps, DP_RATE_HBR2);
		check_int_eq(s.steps[1].verb, SIM_CABLE);
		check_int_eq(s.steps[1].at_ms, 1000);
		check_int_eq(s.steps[1].params.rate_mbps, DP_RATE_HBR);
		check_int_eq(s.steps[1].params.lanes, 2);
		check_int_eq(s.steps[2].verb, SIM_HEAL);
		check_int_eq(s.steps[2].at_ms, 1500);
		check_int_eq(s.steps[2].params.rate_mbps, 0);
		check_int_eq(s.steps[3].verb, SIM_SWAP);
		check(strcmp(s.steps[3].sink->name, "1440p144") == 0);
		check_int_eq(s.steps[4].params.rate_mbps, 0);
		check_int_eq(s.steps[4].params.lanes, 0);
		check_int_eq(s.steps[4].at_ms, 2500);
		check_int_eq(s.steps[5].verb, SIM_UNPLUG);
		check_int_eq(s.steps[6].verb, SIM_REJECT);
		check(s.steps[6].on);
		check_int_eq(s.steps[7].verb, SIM_END);
		check_int_eq(s.steps[7].at_ms, 4000);
	}
	sim_scenario_finish(&s);
}

/* The sink's side: a lock lost once or above a rate, symbol errors. */
static void test_sink_verbs_parse(void) {
	struct sim_scenario s;
	check(parse("0 plug DP-1 4k60\n1s dark DP-1\n2s dark DP-1 hbr2\n"
		"3s errors DP-1 0\n4s errors DP-1 1000000\n", &s));
	check_int_eq(s.len, 5);
	if (s.len == 5) {
		check_int_eq(s.steps[1].verb, SIM_DARK);
		check_int_eq(s.steps[1].params.rate_mbps, 0);
		check_int_eq(s.steps[2].verb, SIM_DARK);
		check_int_eq(s.steps[2].params.rate_mbps, DP_RATE_HBR2);
		check_int_eq(s.steps[3].verb, SIM_ERRORS);
		check_int_eq(s.steps[3].count, 0);
		check_int_eq(s.steps[4].count, 1000000);
	}
	sim_scenario_finish(&s);
	check(!parse("0 plug DP-1 4k60\n1s dark DP-1 fast\n", &s));
	check_error("dark takes [<rate>]");
	check(!parse("0 plug DP-1 4k60\n1s dark DP-1 hbr hbr2\n", &s));
	check_error("dark takes [<rate>]");
	check(!parse("0 plug DP-1 4k60\n1s errors DP-1\n", &s));
	check_error("errors takes <count per lane and minute>");
	check(!parse("0 plug DP-1 4k60\n1s errors DP-1 -3\n", &s));
	check_error("errors takes <count per lane and minute>");
	check(!parse("0 plug DP-1 4k60\n1s errors DP-1 2000000000\n", &s));
	check_error("errors takes <count per lane and minute>");
	check(!parse("1s dark DP-3\n", &s));
}

/* Without source=, the source is not the limit: UHBR20 x4. */
static void test_plug_defaults_and_profiles(void) {
	struct sim_scenario s;
	check(parse("0 plug DP-1 1080p60-rbr\n0 plug eDP_2 uhbr-8k source=UHBR13.5x4\n", &s));
	check_int_eq(s.len, 2);
	if (s.len == 2) {
		check_int_eq(s.steps[0].params.rate_mbps, DP_RATE_UHBR20);
		check_int_eq(s.steps[0].params.lanes, 4);
		check_int_eq(s.steps[1].params.rate_mbps, DP_RATE_UHBR13_5);
		check(strcmp(s.steps[1].sink->name, "uhbr-8k") == 0);
	}
	sim_scenario_finish(&s);
}

/* "mst" may come before or after source=, once; without it, SST. */
static void test_plug_takes_an_mst_flag(void) {
	const char *with_mst[] = {
		"0 plug DP-1 4k60 mst\n",
		"0 plug DP-1 4k60 source=hbr2x2 mst\n",
		"0 plug DP-1 4k60 mst source=hbr2x2\n",
	};
	for (size_t i = 0; i < sizeof(with_mst) / sizeof(with_mst[0]); i++) {
		struct sim_scenario s;
		check(parse(with_mst[i], &s));
		check_int_eq(s.len, 1);
		if (s.len == 1) {
			check(s.steps[0].mst);
			check_int_eq(s.steps[0].params.lanes, i == 0 ? 4 : 2);
			check_int_eq(s.steps[0].params.rate_mbps,
				i == 0 ? DP_RATE_UHBR20 : DP_RATE_HBR2);
		}
		sim_scenario_finish(&s);
	}
	struct sim_scenario s;
	check(parse("0 plug DP-1 4k60 source=hbr2x2\n", &s));
	check(s.len == 1 && !s.steps[0].mst);
	sim_scenario_finish(&s);
}

static uint64_t parse_time_of(const char *time) {
	char text[128];
	snprintf(text, sizeof(text), "%s plug DP-1 4k60\n", time);
	struct sim_scenario s;
	if (!parse(text, &s)) {
		return UINT64_MAX;
	}
	uint64_t at = s.len == 1 ? s.steps[0].at_ms : UINT64_MAX - 1;
	sim_scenario_finish(&s);
	return at;
}

static void test_time_formats(void) {
	check_int_eq(parse_time_of("0"), 0);
	check_int_eq(parse_time_of("1500"), 1500);
	check_int_eq(parse_time_of("1500ms"), 1500);
	check_int_eq(parse_time_of("2s"), 2000);
	check_int_eq(parse_time_of("1.5s"), 1500);
	check_int_eq(parse_time_of("0.25s"), 250);
	check_int_eq(parse_time_of("0.001s"), 1);
	const char *bad[] = { "1.5", "1.5ms", "1.2345s", "1e3", "0x10", "nan", "inf",
		"+5", "-0", "5m", "5 ms", "s", "ms", ".5s", "1.s", "99999999999999999999" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (parse_time_of(bad[i]) != UINT64_MAX) {
			fprintf(stderr, "  time '%s' was accepted\n", bad[i]);
			test_failures++;
		}
	}
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
		check_int_eq(s.steps[2].at_ms, 150);
		check_int_eq(s.steps[3].verb, SIM_GLITCH);
		check_int_eq(s.steps[3].at_ms, 300);
		check_int_eq(s.steps[4].verb, SIM_GLITCH);
		check_int_eq(s.steps[4].at_ms, 500);
	}
	sim_scenario_finish(&s);
}

/* A wait is no step: it holds what sorts after it, glitches included. */
static void test_wait_parses_between_steps(void) {
	struct sim_scenario s;
	check(parse(
		"0 plug DP-1 4k60\n"
		"0 wait ready\n"
		"100ms flap DP-1 2 200ms\n"
		"200ms wait glitched_1\n"
		"200ms cable DP-1 hbr\n", &s));
	check_int_eq(s.len, 4);
	check_int_eq(s.n_waits, 2);
	if (s.n_waits == 2) {
		check_int_eq(s.waits[0].at_ms, 0);
		check_int_eq(s.waits[0].seq, 1); // after the plug, before the flap
		check(strcmp(s.waits[0].name, "ready") == 0);
		check_int_eq(s.waits[1].at_ms, 200);
		check_int_eq(s.waits[1].seq, 3); // before the cable
		check(strcmp(s.waits[1].name, "glitched_1") == 0);
	}
	sim_scenario_finish(&s);
}

static void expect_error(const char *text, const char *fragment) {
	struct sim_scenario s = { .steps = (void *)&s, .len = 99 };
	bool ok = parse(text, &s);
	check(!ok);
	if (ok) {
		sim_scenario_finish(&s);
		return;
	}
	check(s.steps == (void *)&s && s.len == 99); // untouched: nothing half-applied
	check_error(fragment);
}

static void test_malformed_files_name_file_line_and_reason(void) {
	expect_error("0 plug DP-1 4k60\n1s jump DP-1\n", "test.scn:2: unknown verb 'jump'");
	expect_error("0 plug DP-1 8k240\n", "test.scn:1: unknown sink profile '8k240'");
	expect_error("0 plug DP-1 4k60\n0 swap DP-1 4K60\n", "test.scn:2: unknown sink profile");
	expect_error("0 plug DP-1 4k60\n1s cable DP-2 hbr\n",
		"test.scn:2: connector never plugged 'DP-2'");
	expect_error("0 unplug DP-1\n1s plug DP-1 4k60\n", "test.scn:1: connector never plugged");
	expect_error("soon plug DP-1 4k60\n", "test.scn:1: bad time 'soon'");
	expect_error("-5 plug DP-1 4k60\n", "test.scn:1: bad time '-5'");
	expect_error("2s plug DP-1 4k60\n1s unplug DP-1\n", "test.scn:2: time goes backwards '1s'");
	expect_error("0 plug DP-1 4k60\n1s cable DP-1 hbr5\n", "test.scn:2: unknown link rate 'hbr5'");
	expect_error("0 plug DP-1 4k60\n1s cable DP-1 hbr lanes=3\n", "test.scn:2: expected lanes=1|2|4");
	expect_error("0 plug DP-1 4k60\n1s cable DP-1 hbr 4\n", "expected lanes=1|2|4, got '4'");
	expect_error("0 plug DP-1 4k60\n1s cable DP-1\n", "test.scn:2: cable takes");
	expect_error("0 plug DP-1 4k60\n1s cable DP-1 hbr lanes=4 x\n", "cable takes");
	expect_error("0 plug DP-1 4k60\n1s unplug DP-1 now\n", "test.scn:2: unexpected argument 'now'");
	expect_error("0 plug DP-1 4k60\n1s heal DP-1 hbr\n", "unexpected argument 'hbr'");
	expect_error("0 plug DP-1 4k60\n1s swap DP-1\n", "test.scn:2: swap takes <sink>");
	expect_error("0 plug DP-1 4k60\n1s flap DP-1 0 100ms\n", "test.scn:2: flap takes");
	expect_error("0 plug DP-1 4k60\n1s flap DP-1 5 0\n", "flap takes");
	expect_error("0 plug DP-1 4k60\n1s flap DP-1 5\n", "flap takes");
	expect_error("0 plug DP-1 4k60\n1s flap DP-1 1001 1ms\n", "flap takes");
	expect_error("0 plug DP-1 4k60\n1s flap DP-1 +5 1ms\n", "flap takes");
	expect_error("0 plug DP-1 4k60 source=hbr9x4\n", "test.scn:1: bad source limit");
	expect_error("0 plug DP-1 4k60 source=hbr2x3\n", "bad source limit");
	expect_error("0 plug DP-1 4k60 hbr2x4\n", "expected source=");
	expect_error("0 plug DP-1\n", "plug takes");
	expect_error("0 plug DP-1 4k60 mst mst\n", "test.scn:1: mst given twice");
	expect_error("0 plug DP-1 4k60 source=hbr2x4 source=hbr3x4\n",
		"test.scn:1: unexpected argument 'source=hbr3x4'");
	expect_error("0 plug DP-1 4k60 MST\n", "expected source=<rate>x<lanes>, got 'MST'");
	expect_error("0 plug DP-1 4k60 mst source=hbr2x4 now\n", "plug takes");
	expect_error("0 plug DP-1 4k60\n1s swap DP-1 4k60 mst\n", "test.scn:2: swap takes");
	expect_error("0 plug\n", "test.scn:1: expected a connector name");
	expect_error("0 plug DP/1 4k60\n", "expected a connector name");
	expect_error("0 plug DP-1-is-a-very-long-connector-name 4k60\n",
		"expected a connector name");
	expect_error("0\n", "test.scn:1: missing verb");
	expect_error("0 plug DP-1 4k60\n1s reject DP-1 maybe\n", "reject takes on|off");
	expect_error("0 plug DP-1 4k60\n1s replug DP-1 now\n", "replug takes [stored]");
	expect_error("0 plug DP-1 4k60\n1s retry DP-1 4k60\n", "unexpected argument '4k60'");
	expect_error("0 plug DP-1 4k60\n1s mode DP-1\n", "test.scn:2: mode takes");
	expect_error("0 plug DP-1 4k60\n1s mode DP-1 -1\n", "mode takes");
	expect_error("0 end\n1s plug DP-1 4k60\n", "test.scn:2: step after end");
	expect_error("0 end now\n", "unexpected argument 'now'");
	expect_error("0 plug DP-1 4k60 a b c d e f g h\n", "too many arguments");
	expect_error("1s 10s\n", "expected a connector name");
	expect_error("0 wait\n", "test.scn:1: expected a file name");
	expect_error("0 wait ../ready\n", "expected a file name (A-Z a-z 0-9 - _) '../ready'");
	expect_error("0 wait ready now\n", "test.scn:1: unexpected argument 'now'");
	expect_error("0 wait a\n0 wait b\n0 wait c\n0 wait d\n0 wait e\n0 wait f\n"
		"0 wait g\n0 wait h\n0 wait i\n0 wait j\n0 wait k\n0 wait l\n"
		"0 wait m\n0 wait n\n0 wait o\n0 wait p\n0 wait q\n",
		"test.scn:17: too many waits");

	char long_line[700];
	memset(long_line, 'x', sizeof(long_line) - 2);
	long_line[sizeof(long_line) - 2] = '\n';
	long_line[sizeof(long_line) - 1] = '\0';
	expect_error(long_line, "test.scn:1: line too long");

	struct sim_scenario s;
	const char with_nul[] = "0 plug DP-1 4k60\n0 un\0plug DP-1\n";
	last_error[0] = '\0';
	check(!sim_scenario_parse("test.scn", with_nul, sizeof(with_nul) - 1, &s));
	check_error("test.scn:2: NUL byte");
}

static void test_missing_file_is_an_error(void) {
	struct sim_scenario s;
	last_error[0] = '\0';
	check(!sim_scenario_load("/nonexistent/scenario.scn", &s));
	check_error("/nonexistent/scenario.scn");
}

static void test_empty_file_is_an_empty_scenario(void) {
	struct sim_scenario s;
	check(parse("", &s));
	check_int_eq(s.len, 0);
	sim_scenario_finish(&s);
	check(parse("# only comments\n\n   \n", &s));
	check_int_eq(s.len, 0);
	sim_scenario_finish(&s);
}

static void test_scenario_files_on_disk(void) {
	struct sim_scenario s;
	check(sim_scenario_load(SCENARIO_DIR "/every-verb.scn", &s));
	check_int_eq(s.len, 24); // flap 5 expands into 5 glitches
	if (s.len == 24) {
		check_int_eq(s.steps[18].verb, SIM_REPLUG);
		check(s.steps[18].on);
		check_int_eq(s.steps[22].verb, SIM_MODE);
		check_int_eq(s.steps[22].count, 2);
		check_int_eq(s.steps[23].verb, SIM_END);
		check_int_eq(s.steps[23].at_ms, 6000);
	}
	sim_scenario_finish(&s);

	check(sim_scenario_load(DEMO_SCENARIO_DIR "/4k60-hbr2-fails.scn", &s));
	check(s.len >= 2 && s.steps[0].verb == SIM_PLUG &&
		s.steps[s.len - 1].verb == SIM_END);
	sim_scenario_finish(&s);

	static const struct {
		const char *file, *error;
	} bad[] = {
		{ "bad-time-backwards.scn", "bad-time-backwards.scn:4: time goes backwards" },
		{ "bad-never-plugged.scn", "bad-never-plugged.scn:3: connector never plugged" },
		{ "bad-unknown-profile.scn", "bad-unknown-profile.scn:3: unknown sink profile" },
		{ "bad-missing-argument.scn", "bad-missing-argument.scn:3: flap takes" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char path[512];
		snprintf(path, sizeof(path), "%s/%s", SCENARIO_DIR, bad[i].file);
		last_error[0] = '\0';
		check(!sim_scenario_load(path, &s));
		check_error(bad[i].error);
	}
}

struct sim_env {
	struct wl_display *display;
	struct wl_event_loop *loop;
	struct wlr_backend *backend;
	struct lg_manager *manager;
	struct lg_sim *sim;
	struct wl_listener scenario_done;
	int done;
};

static void handle_scenario_done(struct wl_listener *listener, void *data) {
	struct sim_env *env = wl_container_of(listener, env, scenario_done);
	env->done++;
}

static void run_loop(struct sim_env *env, int ms) {
	for (int i = 0; i < ms / 5; i++) {
		wl_event_loop_dispatch(env->loop, 5);
	}
}

/* A display, the headless backend, a manager and a sim; false on failure. */
static bool sim_env_init(struct sim_env *env) {
	*env = (struct sim_env){0};
	env->display = wl_display_create();
	env->loop = wl_display_get_event_loop(env->display);
	env->backend = wlr_headless_backend_create(env->loop);
	check(env->backend != NULL);
	if (env->backend == NULL) {
		wl_display_destroy(env->display);
		return false;
	}
	env->manager = lg_manager_create(env->display, env->backend, NULL, NULL);
	env->sim = lg_sim_create(env->manager, env->backend);
	check(env->manager != NULL && env->sim != NULL);
	if (env->sim == NULL) {
		wl_display_destroy(env->display);
		return false;
	}
	env->scenario_done.notify = handle_scenario_done;
	wl_signal_add(&env->sim->events.scenario_done, &env->scenario_done);
	check(wlr_backend_start(env->backend));
	return true;
}

static void sim_env_finish(struct sim_env *env) {
	wl_list_remove(&env->scenario_done.link);
	lg_sim_destroy(env->sim);
	check_int_eq(wl_list_length(&env->manager->connectors), 0);
	lg_manager_destroy(env->manager);
	wlr_backend_destroy(env->backend);
	wl_display_destroy(env->display);
}

/* Writes text to a new temporary file; path must end in XXXXXX. */
static bool write_scenario(char *path, const char *text) {
	int fd = mkstemp(path);
	size_t len = strlen(text);
	bool ok = fd >= 0 && write(fd, text, len) == (ssize_t)len;
	if (fd >= 0) {
		close(fd);
	}
	check(ok);
	return ok;
}

/* A rejected file schedules nothing: no connector, no scenario_done. */
static void test_malformed_file_leaves_nothing_scheduled(void) {
	struct sim_env env;
	if (!sim_env_init(&env)) {
		return;
	}

	// Line 2 is fine on its own; line 3 spoils the file.
	last_error[0] = '\0';
	check(!lg_sim_load_scenario(env.sim, SCENARIO_DIR "/bad-never-plugged.scn"));
	check_error("bad-never-plugged.scn:3:");
	run_loop(&env, 50);
	check_int_eq(wl_list_length(&env.manager->connectors), 0);
	check_int_eq(env.done, 0);

	// The sim is still free to take a good file afterwards.
	char path[] = "/tmp/linkguard-scn-XXXXXX";
	write_scenario(path, "0 plug DP-1 4k60\n20ms end\n");
	check(lg_sim_load_scenario(env.sim, path));
	check(!lg_sim_load_scenario(env.sim, path)); // one scenario at a time
	unlink(path);
	run_loop(&env, 100);
	check_int_eq(env.done, 1);
	check_int_eq(wl_list_length(&env.manager->connectors), 1);
	struct lg_connector *conn = lg_manager_find_connector(env.manager, 0, 1);
	check(conn != NULL && strcmp(conn->name, "DP-1") == 0 && conn->connected);
	check(!logged_mst_plug);
	sim_env_finish(&env);
}

/* The mst word reaches the simulated link: the plug is logged as MST. */
static void test_mst_plug_reaches_the_link(void) {
	struct sim_env env;
	if (!sim_env_init(&env)) {
		return;
	}
	lg_log_init(LG_INFO, capture_log);
	logged_mst_plug = false;
	char path[] = "/tmp/linkguard-scn-XXXXXX";
	write_scenario(path, "0 plug DP-1 4k60 source=hbr3x4 mst\n20ms end\n");
	check(lg_sim_load_scenario(env.sim, path));
	unlink(path);
	run_loop(&env, 100);
	check_int_eq(env.done, 1); // the scenario ran to its end
	check_int_eq(wl_list_length(&env.manager->connectors), 1);
	check(logged_mst_plug);
	lg_log_init(LG_ERROR, capture_log);
	sim_env_finish(&env);
}

/*
 * The steps after a wait run once its file exists, as far from the cue as
 * the file has them from the wait: a test's cue, not the wall clock, says
 * when the fault comes.
 */
static void test_wait_holds_the_steps_after_it(void) {
	char dir[] = "/tmp/linkguard-cue-XXXXXX";
	check(mkdtemp(dir) != NULL);
	setenv("XDG_RUNTIME_DIR", dir, 1);
	struct sim_env env;
	if (!sim_env_init(&env)) {
		return;
	}
	char path[] = "/tmp/linkguard-scn-XXXXXX";
	write_scenario(path, "0 plug DP-1 4k60\n10ms wait go\n1010ms unplug DP-1\n1020ms end\n");
	check(lg_sim_load_scenario(env.sim, path));
	unlink(path);
	run_loop(&env, 1500);
	struct lg_connector *conn = lg_manager_find_connector(env.manager, 0, 1);
	// The plug ran; the unplug, due at 1010 ms, waits for the cue.
	check(conn != NULL && conn->connected);
	check_int_eq(env.done, 0);

	char cue[64];
	snprintf(cue, sizeof(cue), "%s/go", dir);
	FILE *f = fopen(cue, "w");
	check(f != NULL);
	if (f != NULL) {
		fclose(f);
	}
	run_loop(&env, 40);
	check(conn != NULL && conn->connected); // due a second after the cue
	check_int_eq(env.done, 0);
	for (int ms = 0; ms < 5000 && env.done == 0; ms += 100) {
		run_loop(&env, 100);
	}
	check(conn != NULL && !conn->connected);
	check_int_eq(env.done, 1);
	sim_env_finish(&env);
	unlink(cue);
	rmdir(dir);
	unsetenv("XDG_RUNTIME_DIR");
}

int main(void) {
	wlr_log_init(WLR_SILENT, NULL);
	lg_log_init(LG_ERROR, capture_log);
	run_test(test_every_verb_parses);
	run_test(test_sink_verbs_parse);
	run_test(test_plug_defaults_and_profiles);
	run_test(test_plug_takes_an_mst_flag);
	run_test(test_time_formats);
	run_test(test_flap_expands_and_interleaves_in_time_order);
	run_test(test_wait_parses_between_steps);
	run_test(test_malformed_files_name_file_line_and_reason);
	run_test(test_missing_file_is_an_error);
	run_test(test_empty_file_is_an_empty_scenario);
	run_test(test_scenario_files_on_disk);
	run_test(test_malformed_file_leaves_nothing_scheduled);
	run_test(test_mst_plug_reaches_the_link);
	run_test(test_wait_holds_the_steps_after_it);
	return test_result();
}
