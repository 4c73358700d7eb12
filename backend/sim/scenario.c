#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linkguard/log.h>
#include <dp/dp.h>
#include <sim/scenario.h>

#define LINE_MAX_LEN 512
#define MAX_STEPS 100000
#define MAX_FLAPS 1000
#define MAX_TIME_MS (24 * 3600 * 1000ULL)
#define MAX_CONNECTORS 64

struct parser {
	const char *name;
	size_t line;
	struct sim_scenario out;
	size_t cap;
	char plugged[MAX_CONNECTORS][SIM_NAME_MAX];
	size_t n_plugged;
	uint64_t last_ms;
	bool ended;
};

static bool parse_error(struct parser *p, const char *reason, const char *token) {
	if (token != NULL) {
		lg_log(LG_ERROR, "%s:%zu: %s '%s'", p->name, p->line, reason, token);
	} else {
		lg_log(LG_ERROR, "%s:%zu: %s", p->name, p->line, reason);
	}
	return false;
}

/* Reads decimal digits into *value; false on none or on overflow past max. */
static const char *parse_digits(const char *p, uint64_t max, uint64_t *value,
		size_t *n_digits) {
	*value = 0;
	*n_digits = 0;
	for (; *p >= '0' && *p <= '9'; p++, (*n_digits)++) {
		*value = *value * 10 + (uint64_t)(*p - '0');
		if (*value > max) {
			return NULL;
		}
	}
	return *n_digits > 0 ? p : NULL;
}

/*
 * "1500" and "1500ms" are milliseconds, "2s" seconds; seconds may carry up
 * to three decimals ("1.5s"). Integers only: no strtod, no locale.
 */
static bool parse_time(const char *token, uint64_t *ms) {
	uint64_t whole, frac = 0;
	size_t n, n_frac = 0;
	const char *p = parse_digits(token, MAX_TIME_MS, &whole, &n);
	if (p == NULL) {
		return false;
	}
	if (*p == '.') {
		p = parse_digits(p + 1, 999, &frac, &n_frac);
		if (p == NULL || n_frac > 3 || strcmp(p, "s") != 0) {
			return false;
		}
		for (; n_frac < 3; n_frac++) {
			frac *= 10;
		}
	}
	if (strcmp(p, "s") == 0) {
		whole = whole * 1000 + frac;
	} else if (*p != '\0' && strcmp(p, "ms") != 0) {
		return false;
	}
	if (whole > MAX_TIME_MS) {
		return false;
	}
	*ms = whole;
	return true;
}

static bool parse_uint(const char *token, uint32_t min, uint32_t max,
		uint32_t *value) {
	char *end;
	errno = 0;
	unsigned long v = strtoul(token, &end, 10);
	if (token[0] < '0' || token[0] > '9' || *end != '\0' || errno != 0 ||
			v < min || v > max) {
		return false;
	}
	*value = (uint32_t)v;
	return true;
}

static bool parse_lanes(const char *token, uint32_t *lanes) {
	return parse_uint(token, 1, 4, lanes) && *lanes != 3;
}

static bool valid_name(const char *name) {
	size_t len = strlen(name);
	if (len == 0 || len >= SIM_NAME_MAX) {
		return false;
	}
	for (size_t i = 0; i < len; i++) {
		char c = name[i];
		bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
			(c >= '0' && c <= '9') || c == '-' || c == '_';
		if (!ok) {
			return false;
		}
	}
	return true;
}

static bool is_plugged(struct parser *p, const char *name) {
	for (size_t i = 0; i < p->n_plugged; i++) {
		if (strcmp(p->plugged[i], name) == 0) {
			return true;
		}
	}
	return false;
}

static bool add_step(struct parser *p, const struct sim_step *step) {
	if (p->out.len >= MAX_STEPS) {
		return parse_error(p, "too many steps", NULL);
	}
	if (p->out.len == p->cap) {
		size_t cap = p->cap > 0 ? p->cap * 2 : 16;
		struct sim_step *steps = realloc(p->out.steps, cap * sizeof(*steps));
		if (steps == NULL) {
			return parse_error(p, "out of memory", NULL);
		}
		p->out.steps = steps;
		p->cap = cap;
	}
	p->out.steps[p->out.len] = *step;
	p->out.steps[p->out.len].seq = p->out.len;
	p->out.len++;
	return true;
}

static bool parse_source(struct parser *p, const char *token,
		struct lg_link_params *params) {
	char rate[16];
	const char *x = strchr(token, 'x');
	const char *value = token + strlen("source=");
	if (strncmp(token, "source=", 7) != 0 || x == NULL ||
			(size_t)(x - value) >= sizeof(rate)) {
		return parse_error(p, "expected source=<rate>x<lanes>, got", token);
	}
	memcpy(rate, value, x - value);
	rate[x - value] = '\0';
	if (!dp_rate_parse(rate, &params->rate_mbps) ||
			!parse_lanes(x + 1, &params->lanes)) {
		return parse_error(p, "bad source limit", token);
	}
	return true;
}

static bool parse_cable(struct parser *p, char **args, int n,
		struct lg_link_params *params) {
	*params = (struct lg_link_params){0};
	if (n < 1 || n > 2) {
		return parse_error(p, "cable takes <rate>|any [lanes=<n>]", NULL);
	}
	if (strcmp(args[0], "any") != 0 && !dp_rate_parse(args[0], &params->rate_mbps)) {
		return parse_error(p, "unknown link rate", args[0]);
	}
	if (n == 2 && (strncmp(args[1], "lanes=", 6) != 0 ||
			!parse_lanes(args[1] + 6, &params->lanes))) {
		return parse_error(p, "expected lanes=1|2|4, got", args[1]);
	}
	return true;
}

static bool parse_sink(struct parser *p, const char *token,
		const struct sim_sink **sink) {
	*sink = sim_sink_find(token);
	return *sink != NULL || parse_error(p, "unknown sink profile", token);
}

/* <sink> [source=<rate>x<lanes>] [mst], the options in either order, once each. */
static bool parse_plug(struct parser *p, char **args, int n, struct sim_step *step) {
	step->params = (struct lg_link_params){ .lanes = 4, .rate_mbps = DP_RATE_UHBR20 };
	if (n < 1 || n > 3) {
		return parse_error(p, "plug takes <sink> [source=<rate>x<lanes>] [mst]", NULL);
	}
	if (!parse_sink(p, args[0], &step->sink)) {
		return false;
	}
	bool has_source = false;
	for (int i = 1; i < n; i++) {
		if (strcmp(args[i], "mst") == 0) {
			if (step->mst) {
				return parse_error(p, "mst given twice", NULL);
			}
			step->mst = true;
		} else if (has_source) {
			return parse_error(p, "unexpected argument", args[i]);
		} else if (!parse_source(p, args[i], &step->params)) {
			return false;
		} else {
			has_source = true;
		}
	}
	return true;
}

/* Parses the verb-specific arguments of one line into step (and flaps). */
static bool parse_step(struct parser *p, struct sim_step *step, const char *verb,
		char **args, int n) {
	if (strcmp(verb, "plug") == 0) {
		step->verb = SIM_PLUG;
		return parse_plug(p, args, n, step);
	}
	if (strcmp(verb, "swap") == 0) {
		step->verb = SIM_SWAP;
		if (n != 1) {
			return parse_error(p, "swap takes <sink>", NULL);
		}
		return parse_sink(p, args[0], &step->sink);
	}
	if (strcmp(verb, "cable") == 0) {
		step->verb = SIM_CABLE;
		return parse_cable(p, args, n, &step->params);
	}
	if (strcmp(verb, "reject") == 0) {
		step->verb = SIM_REJECT;
		if (n != 1 || (strcmp(args[0], "on") != 0 && strcmp(args[0], "off") != 0)) {
			return parse_error(p, "reject takes on|off", NULL);
		}
		step->on = strcmp(args[0], "on") == 0;
		return true;
	}
	if (strcmp(verb, "dark") == 0) {
		step->verb = SIM_DARK;
		if (n > 1 || (n == 1 && !dp_rate_parse(args[0], &step->params.rate_mbps))) {
			return parse_error(p, "dark takes [<rate>]", n == 1 ? args[0] : NULL);
		}
		return true;
	}
	if (strcmp(verb, "errors") == 0) {
		step->verb = SIM_ERRORS;
		if (n != 1 || !parse_uint(args[0], 0, 1000000000, &step->count)) {
			return parse_error(p, "errors takes <count per lane and minute>", NULL);
		}
		return true;
	}
	if (strcmp(verb, "replug") == 0) {
		step->verb = SIM_REPLUG;
		if (n > 1 || (n == 1 && strcmp(args[0], "stored") != 0)) {
			return parse_error(p, "replug takes [stored]", n == 1 ? args[0] : NULL);
		}
		step->on = n == 1;
		return true;
	}
	static const struct {
		const char *name;
		enum sim_verb verb;
	} bare[] = {
		{ "unplug", SIM_UNPLUG },
		{ "heal", SIM_HEAL },
		{ "retry", SIM_CLIENT_RETRY },
		{ "commit-fails", SIM_COMMIT_FAILS },
		{ "vt-switch", SIM_VT_SWITCH },
	};
	for (size_t i = 0; i < sizeof(bare) / sizeof(bare[0]); i++) {
		if (strcmp(verb, bare[i].name) == 0) {
			step->verb = bare[i].verb;
			return n == 0 || parse_error(p, "unexpected argument", args[0]);
		}
	}
	if (strcmp(verb, "mode") == 0) {
		step->verb = SIM_MODE;
		if (n != 1 || !parse_uint(args[0], 0, 1000, &step->count)) {
			return parse_error(p, "mode takes <index into the sink's modes>", NULL);
		}
		return true;
	}
	if (strcmp(verb, "flap") == 0) {
		uint32_t count;
		uint64_t interval;
		if (n != 2 || !parse_uint(args[0], 1, MAX_FLAPS, &count) ||
				!parse_time(args[1], &interval) || interval == 0) {
			return parse_error(p, "flap takes <count 1-1000> <interval>", NULL);
		}
		step->verb = SIM_GLITCH;
		for (uint32_t i = 0; i + 1 < count; i++) {
			struct sim_step glitch = *step;
			glitch.at_ms = step->at_ms + i * interval;
			if (!add_step(p, &glitch)) {
				return false;
			}
		}
		step->at_ms += (uint64_t)(count - 1) * interval;
		return true;
	}
	return parse_error(p, "unknown verb", verb);
}

/* A wait is no step: it holds the steps after it (sim.c). */
static bool parse_wait(struct parser *p, uint64_t at_ms, char **args, int n) {
	if (n != 1 || !valid_name(args[0])) {
		return parse_error(p, n > 1 ? "unexpected argument" :
			"expected a file name (A-Z a-z 0-9 - _)",
			n > 1 ? args[1] : n == 1 ? args[0] : NULL);
	}
	if (p->out.n_waits == SIM_WAITS_MAX) {
		return parse_error(p, "too many waits", NULL);
	}
	struct sim_wait *wait = &p->out.waits[p->out.n_waits++];
	wait->at_ms = at_ms;
	wait->seq = p->out.len;
	strcpy(wait->name, args[0]);
	return true;
}

static bool parse_line(struct parser *p, char *line) {
	char *hash = strchr(line, '#');
	if (hash != NULL) {
		*hash = '\0';
	}
	char *tokens[8];
	int n = 0;
	for (char *save = NULL, *tok = strtok_r(line, " \t\r", &save); tok != NULL;
			tok = strtok_r(NULL, " \t\r", &save)) {
		if (n == 8) {
			return parse_error(p, "too many arguments", NULL);
		}
		tokens[n++] = tok;
	}
	if (n == 0) {
		return true;
	}
	if (p->ended) {
		return parse_error(p, "step after end", NULL);
	}

	struct sim_step step = {0};
	if (!parse_time(tokens[0], &step.at_ms)) {
		return parse_error(p, "bad time", tokens[0]);
	}
	if (step.at_ms < p->last_ms) {
		return parse_error(p, "time goes backwards", tokens[0]);
	}
	p->last_ms = step.at_ms;
	if (n < 2) {
		return parse_error(p, "missing verb", NULL);
	}
	if (strcmp(tokens[1], "end") == 0) {
		step.verb = SIM_END;
		p->ended = true;
		return n == 2 ? add_step(p, &step) :
			parse_error(p, "unexpected argument", tokens[2]);
	}
	if (strcmp(tokens[1], "wait") == 0) {
		return parse_wait(p, step.at_ms, tokens + 2, n - 2);
	}
	if (n < 3 || !valid_name(tokens[2])) {
		return parse_error(p, "expected a connector name (A-Z a-z 0-9 - _)",
			n < 3 ? NULL : tokens[2]);
	}
	strcpy(step.connector, tokens[2]);
	bool plug = strcmp(tokens[1], "plug") == 0;
	if (!plug && !is_plugged(p, step.connector)) {
		return parse_error(p, "connector never plugged", step.connector);
	}
	if (plug && !is_plugged(p, step.connector)) {
		if (p->n_plugged == MAX_CONNECTORS) {
			return parse_error(p, "too many connectors", NULL);
		}
		strcpy(p->plugged[p->n_plugged++], step.connector);
	}
	if (!parse_step(p, &step, tokens[1], tokens + 3, n - 3)) {
		return false;
	}
	return add_step(p, &step);
}

/* By time, then file order: a flap's glitches interleave with later lines. */
static int compare_steps(const void *a, const void *b) {
	const struct sim_step *sa = a, *sb = b;
	if (sa->at_ms != sb->at_ms) {
		return sa->at_ms < sb->at_ms ? -1 : 1;
	}
	return (sa->seq > sb->seq) - (sa->seq < sb->seq);
}

bool sim_scenario_parse(const char *name, const char *text, size_t size,
		struct sim_scenario *scenario) {
	struct parser p = { .name = name };
	size_t pos = 0;
	while (pos < size) {
		p.line++;
		const char *nl = memchr(text + pos, '\n', size - pos);
		size_t len = (nl != NULL ? (size_t)(nl - text) : size) - pos;
		char line[LINE_MAX_LEN + 1];
		bool ok;
		if (len > LINE_MAX_LEN) {
			ok = parse_error(&p, "line too long", NULL);
		} else if (memchr(text + pos, '\0', len) != NULL) {
			ok = parse_error(&p, "NUL byte in line", NULL);
		} else {
			memcpy(line, text + pos, len);
			line[len] = '\0';
			ok = parse_line(&p, line);
		}
		if (!ok) {
			free(p.out.steps);
			return false;
		}
		pos += len + 1;
	}
	if (p.out.len > 0) {
		qsort(p.out.steps, p.out.len, sizeof(*p.out.steps), compare_steps);
	}
	*scenario = p.out;
	return true;
}

bool sim_scenario_load(const char *path, struct sim_scenario *scenario) {
	FILE *f = fopen(path, "rb");
	if (f == NULL) {
		lg_log_errno(LG_ERROR, "%s: cannot open scenario", path);
		return false;
	}
	char *text = NULL;
	size_t size = 0, cap = 0;
	char buf[4096];
	size_t n;
	bool ok = true;
	while (ok && (n = fread(buf, 1, sizeof(buf), f)) > 0) {
		if (size + n > cap) {
			cap = (size + n) * 2;
			char *grown = realloc(text, cap);
			ok = grown != NULL;
			text = ok ? grown : text;
		}
		if (ok) {
			memcpy(text + size, buf, n);
			size += n;
		}
	}
	ok = ok && !ferror(f);
	fclose(f);
	if (!ok) {
		lg_log(LG_ERROR, "%s: cannot read scenario", path);
		free(text);
		return false;
	}
	ok = sim_scenario_parse(path, text != NULL ? text : "", size, scenario);
	free(text);
	return ok;
}

void sim_scenario_finish(struct sim_scenario *scenario) {
	free(scenario->steps);
	*scenario = (struct sim_scenario){0};
}
