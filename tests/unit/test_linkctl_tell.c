/*
 * What linkctl tells a person (linkctl/tell.c) and the status bar's line
 * (linkctl/waybar.c): the words for each case, and generated connector and
 * monitor names (control characters, bytes that are not UTF-8, markup) that
 * must still give a line a strict JSON parser reads, with text and tooltip
 * valid Pango markup that says exactly the sentence.
 *
 *   test_linkctl_tell [ITERATIONS]   (LINKGUARD_SEED repeats a run)
 */
#include <locale.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <json-c/json.h>
#include "linkguard-link-v1-client-protocol.h"
#include "linkctl.h"
#include "test.h"

static const struct mode uhd60 = { 3840, 2160, 60000, 0 };
static const struct mode uhd30 = { 3840, 2160, 30000, 0 };
static const struct mode qhd = { 2560, 1440, 59951, 0 };

static void test_mode_words(void) {
	char buf[64];
	check(strcmp(tell_mode(&uhd60, buf, sizeof(buf)), "3840x2160@60") == 0);
	check(strcmp(tell_mode(&qhd, buf, sizeof(buf)), "2560x1440@59.951") == 0);
	const struct mode ntsc = { 1920, 1080, 29970, 0 }, none = {0};
	check(strcmp(tell_mode(&ntsc, buf, sizeof(buf)), "1920x1080@29.97") == 0);
	check(strcmp(tell_mode(&none, buf, sizeof(buf)), "off") == 0);
}

static struct connector degraded_dell(void) {
	struct connector conn = { .name = "DP-1" };
	conn.current = (struct link_state){
		.description = "Dell U2720Q",
		.connected = true,
		.state = ZLG_LINK_CONNECTOR_V1_STATE_DEGRADED,
		.requested = uhd60,
		.current = uhd30,
		.has_fallback = true,
		.fallback = { .reason = ZLG_LINK_CONNECTOR_V1_FALLBACK_REASON_MODE_PRUNED,
			.from = uhd60, .to = uhd30 },
	};
	return conn;
}

static bool sentence_is(const struct connector *conn, const char *want) {
	char *got = tell_sentence(conn);
	bool same = got != NULL && strcmp(got, want) == 0;
	if (!same) {
		fprintf(stderr, "sentence '%s', want '%s'\n", got, want);
	}
	free(got);
	return same;
}

static void test_sentences(void) {
	struct connector conn = degraded_dell();
	check(sentence_is(&conn, "DP-1 (Dell U2720Q): the cable no longer carries "
		"3840x2160@60; now 3840x2160@30. Try another cable or a lower "
		"refresh rate."));
	conn.current.fallback.reason = ZLG_LINK_CONNECTOR_V1_FALLBACK_REASON_KNOWN_BAD;
	check(sentence_is(&conn, "DP-1 (Dell U2720Q): 3840x2160@60 failed on this "
		"monitor before and is skipped; now 3840x2160@30. Replug the "
		"monitor to try it again."));
	conn.current.fallback.reason = 99; // a reason of a later protocol version
	check(sentence_is(&conn, "DP-1 (Dell U2720Q): 3840x2160@60 does not work "
		"on this link; now 3840x2160@30."));
	conn.current.state = ZLG_LINK_CONNECTOR_V1_STATE_FAILED;
	check(sentence_is(&conn, "DP-1 (Dell U2720Q): no mode works on this link "
		"any more; linkguard keeps trying. Replug the monitor or try "
		"another cable."));
	conn.current.state = ZLG_LINK_CONNECTOR_V1_STATE_GOOD;
	conn.current.current = uhd60;
	conn.current.description = NULL;
	check(sentence_is(&conn, "DP-1: 3840x2160@60, the link holds."));
	conn.current.current = (struct mode){0}; // turned off, or not yet on
	check(sentence_is(&conn, "DP-1: the output is off."));
}

/*
 * A step back up is told as one, with why the requested mode does not run
 * yet; the step down before it, still the last fallback, is not.
 */
static void test_step_up_sentence(void) {
	const struct mode fhd = { 1920, 1080, 60000, 0 };
	struct connector conn = degraded_dell();
	conn.current.fallback = (struct fallback){
		.reason = ZLG_LINK_CONNECTOR_V1_FALLBACK_REASON_FLAPPING,
		.from = uhd30, .to = fhd,
	};
	struct incident step_up = {
		.reason = ZLG_LINK_CONNECTOR_V1_INCIDENT_REASON_MODE_PRUNED,
		.outcome = ZLG_LINK_CONNECTOR_V1_INCIDENT_OUTCOME_STEP_UP,
		.from = fhd, .to = uhd30,
	};
	conn.current.incidents = &step_up;
	conn.current.n_incidents = 1;
	check(tell_step_up(&conn.current) == &step_up);
	check(sentence_is(&conn, "DP-1 (Dell U2720Q): back up from 1920x1080@60, "
		"the link holds again; the cable no longer carries 3840x2160@60; "
		"now 3840x2160@30. Try another cable or a lower refresh rate."));
	// A compositor older than version 4 says degraded: the fallback does
	// not explain a mode it did not set.
	step_up.outcome = ZLG_LINK_CONNECTOR_V1_INCIDENT_OUTCOME_DEGRADED;
	check(tell_step_up(&conn.current) == NULL);
	check(sentence_is(&conn, "DP-1 (Dell U2720Q): running 3840x2160@30 "
		"instead of 3840x2160@60."));
	// A step up to another mode than the one that runs is old news.
	step_up.outcome = ZLG_LINK_CONNECTOR_V1_INCIDENT_OUTCOME_STEP_UP;
	conn.current.current = fhd;
	check(tell_step_up(&conn.current) == NULL);
	check(sentence_is(&conn, "DP-1 (Dell U2720Q): the link kept dropping at "
		"3840x2160@30; now 1920x1080@60 until it holds steady."));
}

static void test_classes(void) {
	struct link_state state = { .connected = true };
	static const struct {
		uint32_t state;
		enum tell_class class;
	} want[] = {
		{ ZLG_LINK_CONNECTOR_V1_STATE_GOOD, TELL_GOOD },
		{ ZLG_LINK_CONNECTOR_V1_STATE_BAD, TELL_DEGRADED },
		{ ZLG_LINK_CONNECTOR_V1_STATE_RETRAINING, TELL_DEGRADED },
		{ ZLG_LINK_CONNECTOR_V1_STATE_DEGRADED, TELL_DEGRADED },
		{ ZLG_LINK_CONNECTOR_V1_STATE_FLAPPING, TELL_FLAPPING },
		{ ZLG_LINK_CONNECTOR_V1_STATE_FAILED, TELL_FAILED },
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		state.state = want[i].state;
		check_int_eq(tell_class(&state), want[i].class);
	}
	state.connected = false;
	state.state = ZLG_LINK_CONNECTOR_V1_STATE_FAILED; // kept over an unplug
	check_int_eq(tell_class(&state), TELL_GOOD);
}

static const char *string_member(struct json_object *obj, const char *key) {
	struct json_object *value;
	if (!json_object_object_get_ex(obj, key, &value) ||
			!json_object_is_type(value, json_type_string)) {
		return NULL;
	}
	return json_object_get_string(value);
}

/* Three links, one good: the text names the two others, the worst decides. */
static void test_waybar_three_links(void) {
	struct connector dp1 = degraded_dell(), dp2 = { .name = "DP-2" },
		dp3 = { .name = "DP-3" };
	dp2.current = (struct link_state){ .connected = true,
		.state = ZLG_LINK_CONNECTOR_V1_STATE_FAILED, .requested = qhd };
	dp3.current = (struct link_state){ .connected = true,
		.state = ZLG_LINK_CONNECTOR_V1_STATE_GOOD, .requested = uhd60,
		.current = uhd60 };
	dp1.next = &dp3;
	dp3.next = &dp2;
	struct linkctl ctl = { .connectors = &dp1 };
	char *line = waybar_line(&ctl);
	struct json_object *obj = line != NULL ? json_tokener_parse(line) : NULL;
	const char *text = obj != NULL ? string_member(obj, "text") : NULL;
	const char *class = obj != NULL ? string_member(obj, "class") : NULL;
	const char *alt = obj != NULL ? string_member(obj, "alt") : NULL;
	check(text != NULL && strcmp(text, "DP-1 3840x2160@30, DP-2 off") == 0);
	check(class != NULL && strcmp(class, "failed") == 0);
	check(alt != NULL && strcmp(alt, "failed") == 0);
	json_object_put(obj);
	free(line);
}

/* xorshift64*: the same sequence for the same seed, on every libc. */
static uint64_t rng_state;

static uint32_t rng(uint32_t n) {
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (uint32_t)((rng_state * 2685821657736338717ull) >> 32) % n;
}

/* What EDIDs and hostile compositors send, in pieces. */
static const char *const fragments[] = {
	"Dell", " ", "U2720Q", "<", ">", "&", "'", "\"", "&amp;", "<b>x</b>",
	"\\", "/", "\t", "\n", "\r", "\033[31m", "\a", "\x7f", "\xff", "\xfe",
	"\xc3", "\xc3\xa9", "\xe2\x82\xac", "\xe2\x82", "\xed\xa0\x80",
	"\xc0\xaf", "\xf0\x9f\x96\xa5", "\xc2\x85", "\xe2\x80\xa8", "%s", "{}",
};

/* A generated string of up to 12 fragments, copied made safe as linkctl does. */
static char *generated_text(struct linkctl *ctl) {
	char raw[256] = "";
	for (uint32_t n = rng(13); n > 0; n--) {
		strcat(raw, fragments[rng(sizeof(fragments) / sizeof(fragments[0]))]);
	}
	return ctl_strdup_text(ctl, raw);
}

static struct mode generated_mode(void) {
	static const struct mode modes[] = { { 0, 0, 0, 0 }, { 3840, 2160, 60000, 0 },
		{ 3840, 2160, 30000, 0 }, { 2560, 1440, 59951, 0 },
		{ 1920, 1080, 29970, 0 } };
	return modes[rng(sizeof(modes) / sizeof(modes[0]))];
}

/*
 * Pango markup (GMarkup, XML's rules) whose text is plain: every & opens one
 * of the entities, no < or >. Decoded into out; false when it is not.
 */
static bool markup_decode(const char *markup, char *out) {
	static const struct {
		const char *entity, *c;
	} entities[] = { { "&amp;", "&" }, { "&lt;", "<" }, { "&gt;", ">" },
		{ "&#39;", "'" }, { "&quot;", "\"" } };
	while (*markup != '\0') {
		if (*markup == '<' || *markup == '>') {
			return false;
		}
		if (*markup != '&') {
			*out++ = *markup++;
			continue;
		}
		size_t i = 0, n = sizeof(entities) / sizeof(entities[0]);
		while (i < n && strncmp(markup, entities[i].entity,
				strlen(entities[i].entity)) != 0) {
			i++;
		}
		if (i == n) {
			return false;
		}
		*out++ = *entities[i].c;
		markup += strlen(entities[i].entity);
	}
	*out = '\0';
	return true;
}

/*
 * The code point at *s, advancing *s; -1 where the bytes are not well-formed
 * UTF-8 (RFC 3629: no overlong forms, surrogates or values past U+10FFFF).
 * Written here, not taken from json-c: json-c 0.18 (Debian 13) rejects
 * every string with a byte past ASCII in its strict mode and with
 * JSON_TOKENER_VALIDATE_UTF8 (0.19 does not). The e2e test (link-waybar)
 * reads the same lines with Python's strict parser.
 */
static int32_t next_code_point(const unsigned char **s) {
	const unsigned char *p = *s;
	int32_t c = *p;
	int n = c < 0x80 ? 0 : c >= 0xc2 && c <= 0xdf ? 1 :
		c >= 0xe0 && c <= 0xef ? 2 : c >= 0xf0 && c <= 0xf4 ? 3 : -1;
	if (n < 0) {
		return -1;
	}
	c &= n == 0 ? 0x7f : 0x3f >> n;
	for (int i = 1; i <= n; i++) {
		if ((p[i] & 0xc0) != 0x80) {
			return -1;
		}
		c = c << 6 | (p[i] & 0x3f);
	}
	if ((n == 2 && c < 0x800) || (n == 3 && c < 0x10000) || c > 0x10ffff ||
			(c >= 0xd800 && c <= 0xdfff)) {
		return -1;
	}
	*s = p + n + 1;
	return c;
}

/* Whether s is UTF-8 throughout, without controls (C0, DEL, C1). */
static bool utf8_printable(const char *s) {
	const unsigned char *p = (const unsigned char *)s;
	while (*p != '\0') {
		int32_t c = next_code_point(&p);
		if (c < 0x20 || (c >= 0x7f && c <= 0x9f)) {
			return false;
		}
	}
	return true;
}

/* The tooltip's plain text as the sentences say it. */
static char *sentences(const struct linkctl *ctl) {
	size_t size = 1;
	char *all = calloc(1, size);
	for (const struct connector *conn = ctl->connectors; conn != NULL;
			conn = conn->next) {
		char *sentence = tell_sentence(conn);
		size += strlen(sentence) + 1;
		all = realloc(all, size);
		if (all[0] != '\0') {
			strcat(all, "\n");
		}
		strcat(all, sentence);
		free(sentence);
	}
	return all;
}

/* One generated line, checked; false when it is wrong (said why). */
static bool check_line(const struct linkctl *ctl, const char *line,
		enum tell_class worst) {
	struct json_tokener *tok = json_tokener_new();
	struct json_object *obj = json_tokener_parse_ex(tok, line, (int)strlen(line));
	enum json_tokener_error error = json_tokener_get_error(tok);
	json_tokener_free(tok);
	if (!utf8_printable(line) || obj == NULL ||
			error != json_tokener_success ||
			!json_object_is_type(obj, json_type_object)) {
		fprintf(stderr, "not JSON (%s): %s\n",
			json_tokener_error_desc(error), line);
		json_object_put(obj);
		return false;
	}
	const char *text = string_member(obj, "text");
	const char *tooltip = string_member(obj, "tooltip");
	const char *class = string_member(obj, "class");
	const char *alt = string_member(obj, "alt");
	char *want_tooltip = sentences(ctl);
	char *plain_text = malloc(strlen(line) + 1);
	char *plain_tooltip = malloc(strlen(line) + 1);
	const char *why = NULL;
	if (text == NULL || tooltip == NULL || class == NULL || alt == NULL ||
			json_object_object_length(obj) != 4) {
		why = "not exactly text, tooltip, class and alt, all strings";
	} else if (!markup_decode(text, plain_text) ||
			!markup_decode(tooltip, plain_tooltip)) {
		why = "text or tooltip is not plain Pango markup";
	} else if (strcmp(plain_tooltip, want_tooltip) != 0) {
		why = "the tooltip does not say the sentences";
	} else if (!utf8_printable(plain_text)) {
		why = "a control character in the text";
	} else if (strcmp(class, tell_class_name(worst)) != 0) {
		why = "not the worst connector's class";
	} else if (strstr(" good bad retraining degraded failed flapping ",
			alt) == NULL || strchr(alt, ' ') != NULL || alt[0] == '\0') {
		why = "an alt that is no state";
	}
	if (why != NULL) {
		fprintf(stderr, "%s: %s\n", why, line);
	}
	free(want_tooltip);
	free(plain_text);
	free(plain_tooltip);
	json_object_put(obj);
	return why == NULL;
}

static void free_connectors(struct linkctl *ctl) {
	while (ctl->connectors != NULL) {
		struct connector *next = ctl->connectors->next;
		free(ctl->connectors->name);
		free(ctl->connectors->current.description);
		free(ctl->connectors);
		ctl->connectors = next;
	}
}

/* Up to 3 connectors with generated names, monitors and states. */
static void generate_connectors(struct linkctl *ctl, enum tell_class *worst) {
	struct connector **tail = &ctl->connectors;
	*worst = TELL_GOOD;
	for (uint32_t n = 1 + rng(3); n > 0; n--) {
		struct connector *conn = calloc(1, sizeof(*conn));
		conn->name = generated_text(ctl);
		struct link_state *state = &conn->current;
		state->description = rng(4) > 0 ? generated_text(ctl) : NULL;
		state->connected = rng(5) > 0;
		state->state = rng(6);
		state->requested = generated_mode();
		state->current = generated_mode();
		state->has_fallback = rng(2);
		state->fallback = (struct fallback){ .reason = rng(5),
			.from = generated_mode(), .to = state->current };
		enum tell_class class = tell_class(state);
		*worst = class > *worst ? class : *worst;
		*tail = conn;
		tail = &conn->next;
	}
}

static void test_generated_lines(uint64_t seed, int iterations) {
	struct linkctl ctl = {
		.utf8 = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0),
	};
	check(ctl.utf8 != (locale_t)0);
	rng_state = seed;
	int wrong = 0;
	for (int i = 0; i < iterations && wrong < 5; i++) {
		enum tell_class worst;
		generate_connectors(&ctl, &worst);
		char *line = waybar_line(&ctl);
		if (line == NULL || !check_line(&ctl, line, worst)) {
			wrong++;
		}
		free(line);
		free_connectors(&ctl);
	}
	check_int_eq(wrong, 0);
	check(!ctl.out_of_memory);
	freelocale(ctl.utf8);
}

int main(int argc, char *argv[]) {
	int iterations = argc > 1 ? atoi(argv[1]) : 5000;
	const char *seed_env = getenv("LINKGUARD_SEED");
	uint64_t seed = seed_env != NULL ? strtoull(seed_env, NULL, 0) :
		(uint64_t)time(NULL) | 1;
	fprintf(stderr, "seed %llu (LINKGUARD_SEED repeats it)\n",
		(unsigned long long)seed);
	run_test(test_mode_words);
	run_test(test_sentences);
	run_test(test_step_up_sentence);
	run_test(test_classes);
	run_test(test_waybar_three_links);
	test_generated_lines(seed, iterations);
	fprintf(stderr, "%s test_generated_lines (%d lines)\n",
		test_failures == 0 ? "ok  " : "FAIL", iterations);
	if (test_failures != 0) {
		fprintf(stderr, "repeat: LINKGUARD_SEED=%llu %s %d\n",
			(unsigned long long)seed, argv[0], iterations);
	}
	return test_result();
}
