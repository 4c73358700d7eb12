/*
 * linkguard(5) on the full headless stack: a 144 Hz monitor whose cable
 * degrades, with and without "min-refresh = 120" in a configuration file
 * section for that monitor, and the file reloaded while the compositor runs.
 */
#define _GNU_SOURCE // mkdtemp
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linkguard/connector.h>
#include <core/recovery.h>
#include "harness.h"
#include "test.h"

/* The sim's 1440p144 sink trains HBR2 x4; at HBR x4 1440p120 and 1440p144 are pruned. */
static const char cable_degrades[] =
	"0 plug DP-1 1440p144\n"
	"300ms cable DP-1 hbr\n";

static char dir[] = "/tmp/lg-settings-XXXXXX";
static char path[256];

static void write_config(const char *text) {
	FILE *f = fopen(path, "w");
	check(f != NULL);
	if (f != NULL) {
		fputs(text, f);
		fclose(f);
	}
}

static bool init(struct harness *h) {
	struct lg_options options;
	lg_options_init(&options);
	options.settle_ms = 100;
	options.config_path = path;
	return harness_init(h, &options);
}

static const struct lg_setting *setting(const struct lg_connector *conn,
		const char *key) {
	for (size_t i = 0; i < lg_setting_key_count(); i++) {
		if (strcmp(conn->settings[i].key, key) == 0) {
			return &conn->settings[i];
		}
	}
	return NULL;
}

static bool idle(void *data) {
	struct harness_connector *hc = data;
	return hc->conn->state == LG_LINK_DEGRADED && recovery_idle(hc->conn);
}

static struct harness_connector *run_degraded(struct harness *h) {
	check(harness_run(h, cable_degrades, 0));
	struct harness_connector *hc = harness_connector(h, "DP-1");
	check(hc != NULL);
	if (hc != NULL) {
		check(harness_dispatch_until(h, idle, hc, 5000));
	}
	return hc;
}

static void test_without_floor_keeps_the_resolution(void) {
	unlink(path);
	struct harness h;
	check(init(&h));
	struct harness_connector *hc = run_degraded(&h);
	if (hc != NULL) {
		check(harness_mode_is(&hc->conn->current, 2560, 1440, 60));
		const struct lg_setting *s = setting(hc->conn, "min-refresh");
		check(s != NULL && s->source == LG_SETTING_DEFAULT &&
			strcmp(s->value, "0") == 0);
	}
	harness_finish(&h);
}

static void test_min_refresh_keeps_144hz(void) {
	write_config(
		"[output DP-1]\n"
		"min-refresh = 60\n"
		"[monitor 1440p144]\n" // the sim's identity for this sink
		"min-refresh = 120\n");
	struct harness h;
	check(init(&h));
	struct harness_connector *hc = run_degraded(&h);
	if (hc != NULL) {
		check(harness_mode_is(&hc->conn->current, 1920, 1080, 144));
		check_int_eq(h.n_fallbacks, 1);
		check(harness_mode_is(&h.fallbacks[0].from, 2560, 1440, 144));
		check(harness_mode_is(&h.fallbacks[0].to, 1920, 1080, 144));
		const struct lg_setting *s = setting(hc->conn, "min-refresh");
		check(s != NULL && s->source == LG_SETTING_FILE &&
			strcmp(s->value, "120") == 0 && s->origin != NULL &&
			strstr(s->origin, ":4") != NULL);
	}
	check_int_eq(h.outputs_destroyed, 0);
	harness_finish(&h);
}

struct reload {
	struct harness *h;
	bool done, ok;
	bool was_at_60hz; // what ran when the file changed
	char min_refresh[64]; // the setting right after the reload
};

/* Between dispatches: once degraded at 1440p60, the floor comes in. */
static void reload_when_degraded(void *data) {
	struct reload *reload = data;
	struct harness_connector *hc = harness_connector(reload->h, "DP-1");
	if (reload->done || hc == NULL || !idle(hc)) {
		return;
	}
	reload->done = true;
	reload->was_at_60hz = harness_mode_is(&hc->conn->current, 2560, 1440, 60);
	write_config("min-refresh = 120\n");
	reload->ok = lg_manager_reload_config(reload->h->manager);
	const struct lg_setting *s = setting(hc->conn, "min-refresh");
	snprintf(reload->min_refresh, sizeof(reload->min_refresh), "%s %s",
		s != NULL ? s->value : "?",
		s != NULL ? lg_setting_source_name(s->source) : "?");
}

/*
 * A reload changes the settings at once; the running mode stays, and the
 * next recovery (after a replug) follows them.
 */
static void test_reload_applies_to_the_next_recovery(void) {
	unlink(path);
	struct harness h;
	check(init(&h));
	struct reload reload = { .h = &h };
	h.tick = reload_when_degraded;
	h.tick_data = &reload;
	check(harness_run(&h,
		"0 plug DP-1 1440p144\n"
		"300ms cable DP-1 hbr\n"
		"2s unplug DP-1\n"
		"2200ms plug DP-1 1440p144\n"
		"2500ms cable DP-1 hbr\n", 0));
	h.tick = NULL;
	check(reload.done && reload.ok && reload.was_at_60hz);
	check(strcmp(reload.min_refresh, "120 file") == 0);
	struct harness_connector *hc = harness_connector(&h, "DP-1");
	check(hc != NULL);
	if (hc == NULL) {
		harness_finish(&h);
		return;
	}
	check(harness_dispatch_until(&h, idle, hc, 5000));
	check(harness_mode_is(&hc->conn->current, 1920, 1080, 144));

	// A file that is not text keeps the settings in effect.
	static const char binary[] = "min-refresh = 60\n\0";
	FILE *f = fopen(path, "w");
	check(f != NULL);
	if (f != NULL) {
		fwrite(binary, 1, sizeof(binary), f);
		fclose(f);
	}
	check(!lg_manager_reload_config(h.manager));
	const struct lg_setting *s = setting(hc->conn, "min-refresh");
	check(s != NULL && strcmp(s->value, "120") == 0);
	harness_finish(&h);
}

int main(void) {
	if (mkdtemp(dir) == NULL) {
		perror("mkdtemp");
		return EXIT_FAILURE;
	}
	snprintf(path, sizeof(path), "%s/config", dir);
	run_test(test_without_floor_keeps_the_resolution);
	run_test(test_min_refresh_keeps_144hz);
	run_test(test_reload_applies_to_the_next_recovery);
	unlink(path);
	rmdir(dir);
	return test_result();
}
