/*
 * linkguard(5): the file as libinih reads it, the values each key takes,
 * what a connector resolves to (monitor > output > device > defaults, the
 * environment over the file, options over both), and every problem as one
 * log line naming the file and line while the rest applies.
 */
#define _GNU_SOURCE // mkdtemp
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <linkguard/log.h>
#include <core/config.h>
#include <core/settings.h>
#include "test.h"

static char log_lines[64][512];
static int n_log_lines, n_errors;

static void capture(enum lg_log_importance importance, const char *fmt, va_list args) {
	n_errors += importance == LG_ERROR;
	if (n_log_lines < 64) {
		vsnprintf(log_lines[n_log_lines++], sizeof(log_lines[0]), fmt, args);
	}
}

static void log_reset(void) {
	n_log_lines = 0;
	n_errors = 0;
}

/* How many lines logged so far contain both needles (b may be NULL). */
static int logged(const char *a, const char *b) {
	int n = 0;
	for (int i = 0; i < n_log_lines; i++) {
		n += strstr(log_lines[i], a) != NULL &&
			(b == NULL || strstr(log_lines[i], b) != NULL);
	}
	return n;
}

static char dir[] = "/tmp/lg-config-XXXXXX";
static char path[256];

static void write_file(const char *text, size_t len) {
	FILE *f = fopen(path, "w");
	check(f != NULL);
	if (f != NULL) {
		fwrite(text, 1, len, f);
		fclose(f);
	}
}

static void write_text(const char *text) {
	write_file(text, strlen(text));
}

struct resolved {
	struct lg_options options;
	struct lg_setting settings[32];
};

static struct lg_config *load(const char *const *settings) {
	struct lg_options options;
	lg_options_init(&options);
	options.config_path = path;
	options.settings = settings;
	return config_create(&options);
}

static void resolve_on(const struct lg_config *config, const char *device,
		const char *output, const char *monitor, struct resolved *out) {
	struct lg_options defaults;
	lg_options_init(&defaults);
	check(lg_setting_key_count() <= 32);
	struct config_target target = { device, output, monitor };
	check(config_resolve(config, &defaults, &target, &out->options,
		out->settings));
}

static void resolve(const struct lg_config *config, const char *output,
		const char *monitor, struct resolved *out) {
	resolve_on(config, NULL, output, monitor, out);
}

static const struct lg_setting *setting(const struct resolved *r, const char *key) {
	for (size_t i = 0; i < lg_setting_key_count(); i++) {
		if (strcmp(r->settings[i].key, key) == 0) {
			return &r->settings[i];
		}
	}
	return NULL;
}

/* value, source and origin (NULL: none) of key. */
static bool is(const struct resolved *r, const char *key, const char *value,
		enum lg_setting_source source, const char *origin) {
	const struct lg_setting *s = setting(r, key);
	if (s == NULL || strcmp(s->value, value) != 0 || s->source != source ||
			(origin == NULL) != (s->origin == NULL) ||
			(origin != NULL && strstr(s->origin, origin) == NULL)) {
		fprintf(stderr, "  %s: %s %s %s\n", key, s != NULL ? s->value : "?",
			s != NULL ? lg_setting_source_name(s->source) : "?",
			s != NULL && s->origin != NULL ? s->origin : "-");
		return false;
	}
	return true;
}

static void finish(struct lg_config *config, struct resolved *r) {
	settings_finish(r->settings);
	config_destroy(config);
}

static void test_missing_file_is_no_error(void) {
	unlink(path);
	log_reset();
	struct lg_config *config = load(NULL);
	struct resolved r;
	resolve(config, "DP-1", NULL, &r);
	check_int_eq(n_errors, 0);
	check(is(&r, "policy", "resolution-first", LG_SETTING_DEFAULT, NULL));
	check(is(&r, "min-refresh", "0", LG_SETTING_DEFAULT, NULL));
	check(is(&r, "min-resolution", "none", LG_SETTING_DEFAULT, NULL));
	check(is(&r, "flap-window", "10s", LG_SETTING_DEFAULT, NULL));
	check(is(&r, "recover", "on", LG_SETTING_DEFAULT, NULL));
	finish(config, &r);
}

static const char precedence_file[] =
	"# a comment\n"
	"policy = refresh-first\n" // 2: no section is [defaults]
	"min-refresh = 60\n"
	"\n"
	"[output DP-1]\n" // 5
	"min-refresh = 100\n"
	"flap-count = 5\n"
	"[monitor DEL-A0B1-123]\n" // 8
	"min-refresh=120   ; inline comment\n"
	"[defaults]\n" // 10
	"flap-window = 1.5s\n"
	"policy = resolution-first\n" // 12: the last line wins
	"[output DP-2]\n"
	"min-resolution = 1920x1080\n";

static void test_monitor_over_output_over_defaults(void) {
	write_text(precedence_file);
	log_reset();
	struct lg_config *config = load(NULL);
	check_int_eq(n_errors, 0);
	struct resolved r;

	resolve(config, "HDMI-A-1", NULL, &r);
	check(is(&r, "policy", "resolution-first", LG_SETTING_FILE, ":12"));
	check(is(&r, "min-refresh", "60", LG_SETTING_FILE, ":3"));
	check(is(&r, "flap-window", "1500ms", LG_SETTING_FILE, ":11"));
	check(is(&r, "flap-count", "3", LG_SETTING_DEFAULT, NULL));
	check_int_eq(r.options.floors.refresh_mhz, 60000);
	check_int_eq(r.options.flap_window_ms, 1500);
	settings_finish(r.settings);

	resolve(config, "DP-1", NULL, &r);
	check(is(&r, "min-refresh", "100", LG_SETTING_FILE, ":6"));
	check(is(&r, "flap-count", "5", LG_SETTING_FILE, ":7"));
	check_int_eq(r.options.flap_count, 5);
	settings_finish(r.settings);

	// The monitor wins over the connector, on whichever connector it is.
	resolve(config, "DP-1", "DEL-A0B1-123", &r);
	check(is(&r, "min-refresh", "120", LG_SETTING_FILE, ":9"));
	check(is(&r, "flap-count", "5", LG_SETTING_FILE, ":7"));
	settings_finish(r.settings);
	resolve(config, "DP-2", "DEL-A0B1-123", &r);
	check(is(&r, "min-refresh", "120", LG_SETTING_FILE, ":9"));
	check(is(&r, "min-resolution", "1920x1080", LG_SETTING_FILE, ":14"));
	check_int_eq(r.options.floors.size.width, 1920);
	check_int_eq(r.options.floors.size.height, 1080);
	settings_finish(r.settings);
	resolve(config, "DP-2", "OTHER", &r);
	check(is(&r, "min-refresh", "60", LG_SETTING_FILE, ":3"));
	finish(config, &r);
}

static const char reads_file[] =
	"[device card1]\n" // 1
	"read-dpcd = off\n"
	"flap-count = 4\n"
	"[output eDP-1]\n" // 4
	"read-dpcd = on\n"
	"[output DP-2]\n" // 6
	"flap-count = 6\n"
	"[monitor DEL-A0B1-123]\n" // 8
	"read-dpcd = off\n"
	"[device card2]\n" // 10
	"read-dpcd = auto\n";

/*
 * The DPCD's opt-outs (a device, a monitor) and the internal panel's
 * opt-in: a device's section is weaker than its outputs' and monitors'.
 */
static void test_read_dpcd_per_device_and_monitor(void) {
	write_text(reads_file);
	log_reset();
	struct lg_config *config = load(NULL);
	check_int_eq(n_errors, 0);
	struct resolved r;

	resolve_on(config, "card0", "DP-1", NULL, &r);
	check(is(&r, "read-dpcd", "auto", LG_SETTING_DEFAULT, NULL));
	check_int_eq(r.options.read_dpcd, LG_READ_DPCD_AUTO);
	settings_finish(r.settings);

	// Every connector of card1, unless its own section says otherwise.
	resolve_on(config, "card1", "DP-1", NULL, &r);
	check(is(&r, "read-dpcd", "off", LG_SETTING_FILE, ":2"));
	check(is(&r, "flap-count", "4", LG_SETTING_FILE, ":3"));
	check_int_eq(r.options.read_dpcd, LG_READ_DPCD_OFF);
	settings_finish(r.settings);
	resolve_on(config, "card1", "DP-2", NULL, &r);
	check(is(&r, "read-dpcd", "off", LG_SETTING_FILE, ":2"));
	check(is(&r, "flap-count", "6", LG_SETTING_FILE, ":7"));
	settings_finish(r.settings);
	resolve_on(config, "card1", "eDP-1", NULL, &r);
	check(is(&r, "read-dpcd", "on", LG_SETTING_FILE, ":5"));
	check_int_eq(r.options.read_dpcd, LG_READ_DPCD_ON);
	settings_finish(r.settings);

	// The monitor's opt-out, on whichever device and connector it is.
	resolve_on(config, "card2", "DP-2", "DEL-A0B1-123", &r);
	check(is(&r, "read-dpcd", "off", LG_SETTING_FILE, ":9"));
	settings_finish(r.settings);
	resolve_on(config, "card2", "DP-2", "OTHER", &r);
	check(is(&r, "read-dpcd", "auto", LG_SETTING_FILE, ":11"));
	settings_finish(r.settings);

	// No device known (a backend without one): its sections do not apply.
	resolve(config, "DP-1", NULL, &r);
	check(is(&r, "read-dpcd", "auto", LG_SETTING_DEFAULT, NULL));
	finish(config, &r);
}

static void test_env_over_file_options_over_env(void) {
	write_text(precedence_file);
	setenv("LINKGUARD_MIN_REFRESH", "144", true);
	setenv("LINKGUARD_RECOVER", "0", true);
	setenv("LINKGUARD_POLICY", "sideways", true); // invalid: logged, ignored
	log_reset();
	const char *const options[] = { "recover=on", "flap-count=7", NULL };
	struct lg_config *config = load(options);
	check(logged("LINKGUARD_POLICY", "sideways") == 1);
	check_int_eq(n_errors, 1);
	struct resolved r;
	resolve(config, "DP-1", "DEL-A0B1-123", &r);
	check(is(&r, "min-refresh", "144", LG_SETTING_ENV, "LINKGUARD_MIN_REFRESH"));
	check(is(&r, "policy", "resolution-first", LG_SETTING_FILE, ":12"));
	check(is(&r, "recover", "on", LG_SETTING_OPTION, NULL));
	check(is(&r, "flap-count", "7", LG_SETTING_OPTION, NULL));
	check(r.options.recover);
	settings_finish(r.settings);
	config_destroy(config);

	// Without options, the variable's "0" turns recovery off.
	config = load(NULL);
	resolve(config, "DP-1", NULL, &r);
	check(is(&r, "recover", "off", LG_SETTING_ENV, "LINKGUARD_RECOVER"));
	check(!r.options.recover);
	unsetenv("LINKGUARD_MIN_REFRESH");
	unsetenv("LINKGUARD_RECOVER");
	unsetenv("LINKGUARD_POLICY");
	finish(config, &r);
}

static void test_bad_lines_are_logged_the_rest_applies(void) {
	char long_line[400];
	memset(long_line, 'a', sizeof(long_line));
	memcpy(long_line, "policy = ", 9);
	long_line[sizeof(long_line) - 1] = '\0';
	char text[2048];
	snprintf(text, sizeof(text),
		"colour = blue\n" // 1: unknown key
		"min-refresh = fast\n" // 2: bad value
		"[output]\n" // 3: no name
		"policy = refresh-first\n" // 4
		"[screen DP-1]\n" // 5: unknown section
		"policy = refresh-first\n" // 6
		"recover = off\n" // 7: the same section, logged once
		"[defaults]\n"
		"this line has no equals sign\n" // 9: malformed
		"%s\n" // 10: longer than inih takes
		"flap-count = 1\n" // 11: below the range
		"flap-window = 50ms\n" // 12: below the range
		"min-resolution = 1920x\n" // 13
		"flap-count = 4\n" // 14: applies
		"min-refresh = 75\n", long_line); // 15: applies
	write_text(text);
	log_reset();
	struct lg_config *config = load(NULL);
	check(logged(":1: unknown key 'colour'", NULL) == 1);
	check(logged(":2: min-refresh = 'fast' is not a refresh rate", NULL) == 1);
	check(logged(":4: unknown section [output]", NULL) == 1);
	check(logged(":6: unknown section [screen DP-1]", NULL) == 1);
	check(logged("unknown section [screen DP-1]", NULL) == 1);
	check(logged(":9: neither [section] nor key = value", NULL) == 1);
	check(logged(":10: line longer than", NULL) == 1);
	check(logged(":11: flap-count = '1'", NULL) == 1);
	check(logged(":12: flap-window = '50ms'", NULL) == 1);
	check(logged(":13: min-resolution = '1920x'", NULL) == 1);
	check(logged(path, "ignored") == n_errors);
	check_int_eq(n_errors, 9);
	struct resolved r;
	resolve(config, "DP-1", NULL, &r);
	check(is(&r, "flap-count", "4", LG_SETTING_FILE, ":14"));
	check(is(&r, "min-refresh", "75", LG_SETTING_FILE, ":15"));
	check(is(&r, "policy", "resolution-first", LG_SETTING_DEFAULT, NULL));
	check(is(&r, "recover", "on", LG_SETTING_DEFAULT, NULL));
	finish(config, &r);
}

static void test_values(void) {
	static const struct {
		const char *key, *value, *canonical; // canonical NULL: invalid
	} cases[] = {
		{ "policy", "refresh-first", "refresh-first" },
		{ "policy", "Refresh-First", NULL },
		{ "policy", "", NULL },
		{ "min-refresh", "119.98", "119.98" },
		{ "min-refresh", "120.000", "120" },
		{ "min-refresh", "0", "0" },
		{ "min-refresh", "1000", "1000" },
		{ "min-refresh", "1000.001", NULL },
		{ "min-refresh", "59.9401", NULL },
		{ "min-refresh", "-60", NULL },
		{ "min-refresh", "1e2", NULL },
		{ "min-refresh", "60Hz", NULL },
		{ "min-refresh", ".5", NULL },
		{ "min-refresh", "5.", NULL },
		{ "min-refresh", "99999999999999999999999", NULL },
		{ "min-resolution", "2560x1440", "2560x1440" },
		{ "min-resolution", "none", "none" },
		{ "min-resolution", "0x0", "none" },
		{ "min-resolution", "2560X1440", NULL },
		{ "min-resolution", "x1440", NULL },
		{ "min-resolution", "2560x1440x", NULL },
		{ "min-resolution", "16385x1", NULL },
		{ "min-resolution", "1920.5x1080", NULL },
		{ "flap-count", "16", "16" },
		{ "flap-count", "17", NULL },
		{ "flap-count", "2.0", NULL },
		{ "flap-window", "10", "10s" },
		{ "flap-window", "2.5s", "2500ms" },
		{ "flap-window", "100ms", "100ms" },
		{ "flap-window", "1.5ms", NULL },
		{ "flap-window", "3601s", NULL },
		{ "flap-window", "s", NULL },
		{ "flap-window", "ms", NULL },
		{ "recover", "OFF", "off" },
		{ "recover", "yes", "on" },
		{ "recover", "0", "off" },
		{ "recover", "maybe", NULL },
		{ "allow-retry", "true", "on" },
		{ "link-errors-per-min", "0", "0" },
		{ "link-errors-per-min", "1000000", "1000000" },
		{ "link-errors-per-min", "1000001", NULL },
		{ "link-errors-per-min", "324.5", NULL },
		{ "link-errors-per-min", "-1", NULL },
		{ "link-errors-step-down", "yes", "on" },
		{ "link-errors-step-down", "sometimes", NULL },
		{ "read-dpcd", "auto", "auto" },
		{ "read-dpcd", "off", "off" },
		{ "read-dpcd", "on", "on" },
		{ "read-dpcd", "yes", NULL },
		{ "read-dpcd", "Auto", NULL },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct setting_key *key = setting_key_find(cases[i].key);
		struct lg_options options;
		lg_options_init(&options);
		const char *expected = NULL;
		bool valid = lg_setting_check(cases[i].key, cases[i].value, &expected);
		bool parsed = key != NULL && setting_parse(key, cases[i].value, &options);
		if (valid != (cases[i].canonical != NULL) || parsed != valid) {
			fprintf(stderr, "  %s = '%s': valid %d\n", cases[i].key,
				cases[i].value, valid);
			test_failures++;
			continue;
		}
		if (!valid) {
			check(expected != NULL && expected[0] != '\0');
			continue;
		}
		char buf[32];
		setting_format(key, &options, buf, sizeof(buf));
		if (strcmp(buf, cases[i].canonical) != 0) {
			fprintf(stderr, "  %s = '%s' reads back as '%s'\n", cases[i].key,
				cases[i].value, buf);
			test_failures++;
		}
	}
	const char *expected;
	check(!lg_setting_check("colour", "blue", &expected));
}

/* Every key reads back what it prints: the canonical form is a fixed point. */
static void test_every_key_round_trips(void) {
	struct lg_options options;
	lg_options_init(&options);
	for (size_t i = 0; i < lg_setting_key_count(); i++) {
		const struct setting_key *key = setting_key_at(i);
		check(setting_key_find(lg_setting_key_name(i)) == key);
		char buf[32], again[32], env[64];
		setting_format(key, &options, buf, sizeof(buf));
		struct lg_options copy = options;
		check(setting_parse(key, buf, &copy));
		setting_format(key, &copy, again, sizeof(again));
		check(strcmp(buf, again) == 0);
		setting_env_name(key, env, sizeof(env));
		check(strncmp(env, "LINKGUARD_", 10) == 0 && strchr(env, '-') == NULL);
	}
	char env[64];
	check(strcmp(setting_env_name(setting_key_find("min-refresh"), env,
		sizeof(env)), "LINKGUARD_MIN_REFRESH") == 0);
}

static void test_corrupt_or_unreadable_file_keeps_the_last_good_one(void) {
	write_text("min-refresh = 120\n");
	log_reset();
	struct lg_config *config = load(NULL);
	check_int_eq(n_errors, 0);

	static const char binary[] = "min-refresh = 60\nflap\0count = 9\n";
	write_file(binary, sizeof(binary) - 1);
	check(!config_reload(config));
	check(logged(":2: a NUL byte: not a text file", NULL) == 1);
	struct resolved r;
	resolve(config, "DP-1", NULL, &r);
	check(is(&r, "min-refresh", "120", LG_SETTING_FILE, ":1"));
	settings_finish(r.settings);

	// A directory in the file's place cannot be read.
	unlink(path);
	check(mkdir(path, 0700) == 0);
	log_reset();
	check(!config_reload(config));
	check(logged("cannot read", path) == 1);
	check(rmdir(path) == 0);

	// Gone: no error, the defaults apply.
	log_reset();
	check(config_reload(config));
	check_int_eq(n_errors, 0);
	resolve(config, "DP-1", NULL, &r);
	check(is(&r, "min-refresh", "0", LG_SETTING_DEFAULT, NULL));
	finish(config, &r);
}

static void test_byte_order_mark_and_crlf(void) {
	write_text("\xef\xbb\xbfpolicy = refresh-first\r\n[output DP-3]\r\nmin-refresh = 90\r\n");
	log_reset();
	struct lg_config *config = load(NULL);
	check_int_eq(n_errors, 0);
	struct resolved r;
	resolve(config, "DP-3", NULL, &r);
	check(is(&r, "policy", "refresh-first", LG_SETTING_FILE, ":1"));
	check(is(&r, "min-refresh", "90", LG_SETTING_FILE, ":3"));
	finish(config, &r);
}

static void test_default_path(void) {
	setenv("XDG_CONFIG_HOME", "/cfg", true);
	setenv("HOME", "/home/u", true);
	unsetenv("LINKGUARD_CONFIG");
	char *p = lg_default_config_path();
	check(p != NULL && strcmp(p, "/cfg/linkguard/config") == 0);
	free(p);
	setenv("XDG_CONFIG_HOME", "relative", true);
	p = lg_default_config_path();
	check(p != NULL && strcmp(p, "/home/u/.config/linkguard/config") == 0);
	free(p);
	setenv("LINKGUARD_CONFIG", "/etc/lg.conf", true);
	p = lg_default_config_path();
	check(p != NULL && strcmp(p, "/etc/lg.conf") == 0);
	free(p);
	unsetenv("LINKGUARD_CONFIG");
}

int main(void) {
	lg_log_init(LG_DEBUG, capture);
	if (mkdtemp(dir) == NULL) {
		perror("mkdtemp");
		return EXIT_FAILURE;
	}
	snprintf(path, sizeof(path), "%s/config", dir);
	run_test(test_missing_file_is_no_error);
	run_test(test_monitor_over_output_over_defaults);
	run_test(test_read_dpcd_per_device_and_monitor);
	run_test(test_env_over_file_options_over_env);
	run_test(test_bad_lines_are_logged_the_rest_applies);
	run_test(test_values);
	run_test(test_every_key_round_trips);
	run_test(test_corrupt_or_unreadable_file_keeps_the_last_good_one);
	run_test(test_byte_order_mark_and_crlf);
	run_test(test_default_path);
	unlink(path);
	rmdir(dir);
	return test_result();
}
