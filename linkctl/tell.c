/*
 * What linkctl tells the person at the monitor (notifications, the status
 * bar): a connector's link in four classes and in one sentence that says
 * what happened and what to do, and Pango markup escaping for the places
 * that render markup.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "linkguard-link-v1-client-protocol.h"
#include "linkctl.h"

static const char *const class_names[] = {
	[TELL_GOOD] = "good",
	[TELL_DEGRADED] = "degraded",
	[TELL_FLAPPING] = "flapping",
	[TELL_FAILED] = "failed",
};

const char *tell_class_name(enum tell_class class) {
	return class_names[class];
}

enum tell_class tell_class(const struct link_state *state) {
	if (!state->connected) {
		return TELL_GOOD; // nothing to worry about
	}
	switch (state->state) {
	case ZLG_LINK_CONNECTOR_V1_STATE_GOOD:
		return TELL_GOOD;
	case ZLG_LINK_CONNECTOR_V1_STATE_FAILED:
		return TELL_FAILED;
	case ZLG_LINK_CONNECTOR_V1_STATE_FLAPPING:
		return TELL_FLAPPING;
	}
	// bad and retraining: the link dropped and recovery is under way.
	return TELL_DEGRADED;
}

const char *tell_mode(const struct mode *mode, char *buf, size_t size) {
	if (mode_is_none(mode)) {
		snprintf(buf, size, "off");
		return buf;
	}
	// 60000 mHz is "60", 59951 "59.951", 29970 "29.97".
	char hz[32];
	int len = snprintf(hz, sizeof(hz), "%.3f", mode->refresh_mhz / 1000.0);
	while (len > 0 && hz[len - 1] == '0') {
		hz[--len] = '\0';
	}
	if (len > 0 && hz[len - 1] == '.') {
		hz[--len] = '\0';
	}
	snprintf(buf, size, "%" PRId32 "x%" PRId32 "@%s", mode->width,
		mode->height, hz);
	return buf;
}

const struct incident *tell_step_up(const struct link_state *state) {
	if (state->n_incidents == 0) {
		return NULL;
	}
	const struct incident *last = &state->incidents[state->n_incidents - 1];
	return last->outcome == ZLG_LINK_CONNECTOR_V1_INCIDENT_OUTCOME_STEP_UP &&
		mode_equal(&last->to, &state->current) ? last : NULL;
}

/*
 * Why the requested mode does not run, in the words of a fallback reason;
 * from is the mode the link dropped at.
 */
static void print_reason(FILE *out, uint32_t reason, const struct mode *from_mode,
		const char *requested, const char *current) {
	char from[64];
	switch (reason) {
	case ZLG_LINK_CONNECTOR_V1_FALLBACK_REASON_MODE_PRUNED:
		fprintf(out, "the cable no longer carries %s; now %s. Try "
			"another cable or a lower refresh rate.", requested, current);
		return;
	case ZLG_LINK_CONNECTOR_V1_FALLBACK_REASON_TEST_FAILED:
		fprintf(out, "the graphics driver cannot set %s on this link "
			"any more; now %s. Try another cable or a lower refresh "
			"rate.", requested, current);
		return;
	case ZLG_LINK_CONNECTOR_V1_FALLBACK_REASON_KNOWN_BAD:
		fprintf(out, "%s failed on this monitor before and is skipped; "
			"now %s. Replug the monitor to try it again.", requested,
			current);
		return;
	case ZLG_LINK_CONNECTOR_V1_FALLBACK_REASON_FLAPPING:
		fprintf(out, "the link kept dropping at %s; now %s until it "
			"holds steady.", tell_mode(from_mode, from, sizeof(from)),
			current);
		return;
	case ZLG_LINK_CONNECTOR_V1_FALLBACK_REASON_SINK_UNLOCKED:
		fprintf(out, "the monitor lost the picture at %s although the "
			"driver saw nothing wrong; now %s. Try another cable.",
			tell_mode(from_mode, from, sizeof(from)), current);
		return;
	case ZLG_LINK_CONNECTOR_V1_FALLBACK_REASON_LINK_ERRORS:
		fprintf(out, "the monitor counted too many errors on the cable "
			"at %s; now %s. Replace the cable.", tell_mode(from_mode,
			from, sizeof(from)), current);
		return;
	}
	fprintf(out, "%s does not work on this link; now %s.", requested, current);
}

/*
 * After a step back up: from where, and why the requested mode does not
 * run yet. A step up's reason is one of the four that incident_reason
 * shares with fallback_reason.
 */
static void print_step_up(FILE *out, const struct link_state *state,
		const struct incident *step_up, const char *requested,
		const char *current) {
	char from[64];
	fprintf(out, "back up from %s, the link holds again; ",
		tell_mode(&step_up->from, from, sizeof(from)));
	uint32_t reason = step_up->reason <= ZLG_LINK_CONNECTOR_V1_INCIDENT_REASON_FLAPPING ?
		step_up->reason : UINT32_MAX;
	print_reason(out, reason, &state->requested, requested, current);
}

static void print_sentence(FILE *out, const struct connector *conn) {
	const struct link_state *state = &conn->current;
	char requested[64], current[64];
	tell_mode(&state->requested, requested, sizeof(requested));
	tell_mode(&state->current, current, sizeof(current));
	fprintf(out, "%s", conn->name != NULL ? conn->name : "?");
	if (state->description != NULL) {
		fprintf(out, " (%s)", state->description);
	}
	fputs(": ", out);
	if (!state->connected) {
		fputs("nothing plugged in.", out);
		return;
	}
	switch (state->state) {
	case ZLG_LINK_CONNECTOR_V1_STATE_GOOD:
		if (mode_is_none(&state->current)) {
			fputs("the output is off.", out);
		} else {
			fprintf(out, "%s, the link holds.", current);
		}
		return;
	case ZLG_LINK_CONNECTOR_V1_STATE_BAD:
		fputs("the link dropped; recovering.", out);
		return;
	case ZLG_LINK_CONNECTOR_V1_STATE_RETRAINING:
		fprintf(out, "the link dropped; trying %s.", current);
		return;
	case ZLG_LINK_CONNECTOR_V1_STATE_FLAPPING:
		fprintf(out, "the link keeps dropping; held at %s until it "
			"holds steady. A loose or damaged cable does this: reseat "
			"or replace it.", current);
		return;
	case ZLG_LINK_CONNECTOR_V1_STATE_FAILED:
		fputs("no mode works on this link any more; linkguard keeps "
			"trying. Replug the monitor or try another cable.", out);
		return;
	}
	bool errors = state->has_sink &&
		(state->sink.flags & ZLG_LINK_CONNECTOR_V1_SINK_FLAGS_LINK_ERRORS);
	const struct incident *step_up = tell_step_up(state);
	if (errors && mode_is_requested(state, &state->current)) {
		fprintf(out, "%s, but the monitor counts too many errors on the "
			"cable: the picture may break up. Replace the cable.", current);
	} else if (step_up != NULL) {
		print_step_up(out, state, step_up, requested, current);
	} else if (state->has_fallback && mode_equal(&state->fallback.to, &state->current)) {
		print_reason(out, state->fallback.reason, &state->fallback.from,
			requested, current);
	} else {
		fprintf(out, "running %s instead of %s.", current, requested);
	}
}

char *tell_sentence(const struct connector *conn) {
	char *text = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&text, &size);
	if (out == NULL) {
		return NULL;
	}
	print_sentence(out, conn);
	bool written = !ferror(out);
	if (fclose(out) != 0 || !written) {
		free(text);
		return NULL;
	}
	return text;
}

char *tell_markup(const char *text) {
	size_t len = 0;
	for (const char *p = text; *p != '\0'; p++) {
		len += strchr("&<>'\"", *p) != NULL ? 6 : 1;
	}
	char *out = malloc(len + 1), *o = out;
	if (out == NULL) {
		return NULL;
	}
	for (const char *p = text; *p != '\0'; p++) {
		const char *entity = *p == '&' ? "&amp;" : *p == '<' ? "&lt;" :
			*p == '>' ? "&gt;" : *p == '\'' ? "&#39;" :
			*p == '"' ? "&quot;" : NULL;
		if (entity != NULL) {
			o = stpcpy(o, entity);
		} else {
			*o++ = *p;
		}
	}
	*o = '\0';
	return out;
}
