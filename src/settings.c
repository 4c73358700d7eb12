/*
 * The keys of linkguard(5). One line in `keys` adds a key: the file, the
 * LINKGUARD_* variable, the example compositor's option, linkctl and the
 * protocol follow from it. Values are parsed strictly (no trailing
 * characters, no overflow) into the lg_options field the key names.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <core/settings.h>

/*
 * A decimal number with up to three decimals, in thousandths: "119.98" is
 * 119980. At most max thousandths.
 */
static bool parse_milli(const char *text, const char *end, uint64_t max,
		uint64_t *out) {
	uint64_t value = 0;
	int decimals = -1;
	if (text == end) {
		return false;
	}
	for (const char *p = text; p < end; p++) {
		if (*p == '.' && decimals < 0 && p > text && p + 1 < end) {
			decimals = 0;
			continue;
		}
		if (!isdigit((unsigned char)*p) || decimals == 3) {
			return false;
		}
		value = value * 10 + (uint64_t)(*p - '0');
		if (decimals >= 0) {
			decimals++;
		}
		if (value > max) {
			return false; // scaling only grows it: too large already
		}
	}
	for (int i = decimals < 0 ? 0 : decimals; i < 3; i++) {
		value *= 10;
	}
	if (value > max) {
		return false;
	}
	*out = value;
	return true;
}

/* "120", "119.98": thousandths without trailing zeros. */
static void format_milli(uint64_t value, char *buf, size_t size) {
	int n = snprintf(buf, size, "%" PRIu64 ".%03" PRIu64, value / 1000,
		value % 1000);
	while (n > 0 && (size_t)n < size && buf[n - 1] == '0') {
		buf[--n] = '\0';
	}
	if (n > 0 && (size_t)n < size && buf[n - 1] == '.') {
		buf[n - 1] = '\0';
	}
}

static const char *text_end(const char *text) {
	return text + strlen(text);
}

static bool parse_policy(const struct setting_key *key, const char *text,
		void *field) {
	static const enum lg_policy policies[] = {
		LG_POLICY_RESOLUTION_FIRST,
		LG_POLICY_REFRESH_FIRST,
	};
	for (size_t i = 0; i < sizeof(policies) / sizeof(policies[0]); i++) {
		if (strcmp(text, lg_policy_name(policies[i])) == 0) {
			*(enum lg_policy *)field = policies[i];
			return true;
		}
	}
	return false;
}

static void format_policy(const void *field, char *buf, size_t size) {
	snprintf(buf, size, "%s", lg_policy_name(*(const enum lg_policy *)field));
}

static bool parse_bool(const struct setting_key *key, const char *text,
		void *field) {
	static const char *const yes[] = { "on", "true", "yes", "1" };
	static const char *const no[] = { "off", "false", "no", "0" };
	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		if (strcasecmp(text, yes[i]) == 0 || strcasecmp(text, no[i]) == 0) {
			*(bool *)field = strcasecmp(text, yes[i]) == 0;
			return true;
		}
	}
	return false;
}

static void format_bool(const void *field, char *buf, size_t size) {
	snprintf(buf, size, "%s", *(const bool *)field ? "on" : "off");
}

static const char *const read_dpcd_names[] = {
	[LG_READ_DPCD_AUTO] = "auto",
	[LG_READ_DPCD_ON] = "on",
	[LG_READ_DPCD_OFF] = "off",
};

static bool parse_read_dpcd(const struct setting_key *key, const char *text,
		void *field) {
	size_t n = sizeof(read_dpcd_names) / sizeof(read_dpcd_names[0]);
	for (size_t i = 0; i < n; i++) {
		if (strcmp(text, read_dpcd_names[i]) == 0) {
			*(enum lg_read_dpcd *)field = (enum lg_read_dpcd)i;
			return true;
		}
	}
	return false;
}

static void format_read_dpcd(const void *field, char *buf, size_t size) {
	snprintf(buf, size, "%s", read_dpcd_names[*(const enum lg_read_dpcd *)field]);
}

/* Hz as given, kept in mHz; 0 is no floor. */
static bool parse_refresh(const struct setting_key *key, const char *text,
		void *field) {
	uint64_t mhz;
	if (!parse_milli(text, text_end(text), key->max, &mhz)) {
		return false;
	}
	*(int32_t *)field = (int32_t)mhz;
	return true;
}

static void format_refresh(const void *field, char *buf, size_t size) {
	format_milli((uint64_t)*(const int32_t *)field, buf, size);
}

static bool parse_dimension(const char *text, const char *end, int32_t max,
		int32_t *out) {
	uint64_t milli;
	if (memchr(text, '.', (size_t)(end - text)) != NULL ||
			!parse_milli(text, end, (uint64_t)max * 1000, &milli)) {
		return false;
	}
	*out = (int32_t)(milli / 1000);
	return true;
}

/* "WxH", or "none" (0x0). */
static bool parse_size(const struct setting_key *key, const char *text,
		void *field) {
	struct lg_size size = {0};
	if (strcmp(text, "none") != 0) {
		const char *x = strchr(text, 'x');
		if (x == NULL || !parse_dimension(text, x, (int32_t)key->max, &size.width) ||
				!parse_dimension(x + 1, text_end(x), (int32_t)key->max,
				&size.height)) {
			return false;
		}
	}
	*(struct lg_size *)field = size;
	return true;
}

static void format_size(const void *field, char *buf, size_t size) {
	const struct lg_size *value = field;
	if (value->width == 0 && value->height == 0) {
		snprintf(buf, size, "none");
	} else {
		snprintf(buf, size, "%" PRId32 "x%" PRId32, value->width, value->height);
	}
}

static bool parse_count(const struct setting_key *key, const char *text,
		void *field) {
	uint64_t milli;
	if (strchr(text, '.') != NULL ||
			!parse_milli(text, text_end(text), (uint64_t)key->max * 1000, &milli) ||
			milli / 1000 < key->min) {
		return false;
	}
	*(uint32_t *)field = (uint32_t)(milli / 1000);
	return true;
}

static void format_count(const void *field, char *buf, size_t size) {
	snprintf(buf, size, "%" PRIu32, *(const uint32_t *)field);
}

/* "10s", "1.5s", "500ms"; a bare number is seconds. Kept in ms. */
static bool parse_duration(const struct setting_key *key, const char *text,
		void *field) {
	const char *end = text_end(text);
	bool ms = end - text > 2 && strcmp(end - 2, "ms") == 0;
	if (ms) {
		end -= 2;
	} else if (end > text && end[-1] == 's') {
		end--;
	}
	uint64_t value;
	if (!parse_milli(text, end, (uint64_t)key->max * (ms ? 1000 : 1), &value)) {
		return false;
	}
	if (ms) {
		if (value % 1000 != 0) {
			return false; // no fractions of a millisecond
		}
		value /= 1000;
	}
	if (value < key->min || value > key->max) {
		return false;
	}
	*(uint32_t *)field = (uint32_t)value;
	return true;
}

static void format_duration(const void *field, char *buf, size_t size) {
	uint32_t ms = *(const uint32_t *)field;
	if (ms % 1000 == 0) {
		snprintf(buf, size, "%" PRIu32 "s", ms / 1000);
	} else {
		snprintf(buf, size, "%" PRIu32 "ms", ms);
	}
}

static const struct setting_type type_policy = {
	parse_policy, format_policy, "resolution-first or refresh-first",
};
static const struct setting_type type_bool = {
	parse_bool, format_bool, "on or off",
};
static const struct setting_type type_read_dpcd = {
	parse_read_dpcd, format_read_dpcd, "auto, on or off",
};
static const struct setting_type type_refresh = {
	parse_refresh, format_refresh, "a refresh rate in Hz (0: none)",
};
static const struct setting_type type_size = {
	parse_size, format_size, "WIDTHxHEIGHT or none",
};
static const struct setting_type type_count = {
	parse_count, format_count, "a whole number in range",
};
static const struct setting_type type_duration = {
	parse_duration, format_duration, "a time in range, as 10s or 500ms",
};

#define OPTION(field) offsetof(struct lg_options, field)

/* In linkguard(5)'s order; ranges are in the field's unit. */
static const struct setting_key keys[] = {
	{ "policy", &type_policy, OPTION(policy), 0, 0 },
	{ "min-refresh", &type_refresh, OPTION(floors.refresh_mhz), 0, 1000000 },
	{ "min-resolution", &type_size, OPTION(floors.size), 0, 16384 },
	{ "flap-count", &type_count, OPTION(flap_count), 2, 16 },
	{ "flap-window", &type_duration, OPTION(flap_window_ms), 100, 3600000 },
	{ "recover", &type_bool, OPTION(recover), 0, 0 },
	{ "allow-retry", &type_bool, OPTION(allow_retry), 0, 0 },
	{ "link-errors-per-min", &type_count, OPTION(link_errors_per_min), 0, 1000000 },
	{ "link-errors-step-down", &type_bool, OPTION(link_errors_step_down), 0, 0 },
	{ "read-dpcd", &type_read_dpcd, OPTION(read_dpcd), 0, 0 },
};

#define N_KEYS (sizeof(keys) / sizeof(keys[0]))

size_t lg_setting_key_count(void) {
	return N_KEYS;
}

const char *lg_setting_key_name(size_t index) {
	return index < N_KEYS ? keys[index].name : NULL;
}

const struct setting_key *setting_key_at(size_t index) {
	return index < N_KEYS ? &keys[index] : NULL;
}

size_t setting_key_index(const struct setting_key *key) {
	return (size_t)(key - keys);
}

const struct setting_key *setting_key_find(const char *name) {
	for (size_t i = 0; i < N_KEYS; i++) {
		if (strcmp(keys[i].name, name) == 0) {
			return &keys[i];
		}
	}
	return NULL;
}

bool setting_parse(const struct setting_key *key, const char *text,
		struct lg_options *options) {
	return key->type->parse(key, text, (char *)options + key->offset);
}

void setting_format(const struct setting_key *key, const struct lg_options *options,
		char *buf, size_t size) {
	key->type->format((const char *)options + key->offset, buf, size);
}

const char *setting_env_name(const struct setting_key *key, char *buf, size_t size) {
	size_t n = (size_t)snprintf(buf, size, "LINKGUARD_");
	for (const char *p = key->name; *p != '\0' && n + 1 < size; p++) {
		buf[n++] = *p == '-' ? '_' : (char)toupper((unsigned char)*p);
	}
	buf[n < size ? n : size - 1] = '\0';
	return buf;
}

bool lg_setting_check(const char *name, const char *value, const char **expected) {
	const struct setting_key *key = setting_key_find(name);
	if (key == NULL) {
		*expected = "a key of linkguard(5)";
		return false;
	}
	struct lg_options scratch;
	lg_options_init(&scratch);
	if (!setting_parse(key, value, &scratch)) {
		*expected = key->type->expected;
		return false;
	}
	return true;
}

const char *lg_setting_source_name(enum lg_setting_source source) {
	switch (source) {
	case LG_SETTING_DEFAULT:
		return "default";
	case LG_SETTING_FILE:
		return "file";
	case LG_SETTING_ENV:
		return "env";
	case LG_SETTING_OPTION:
		return "option";
	}
	return "unknown";
}
