/*
 * The human format, in the spirit of wlr-randr: one block per connector,
 * and one line per change for watch.
 */
#include <inttypes.h>
#include <stdio.h>
#include <time.h>
#include "linkguard-link-v1-client-protocol.h"
#include "linkctl.h"

static const char *format_mode(const struct mode *mode, char *buf, size_t size) {
	if (mode_is_none(mode)) {
		snprintf(buf, size, "none");
	} else {
		snprintf(buf, size, "%" PRId32 "x%" PRId32 " px, %.3f Hz",
			mode->width, mode->height, mode->refresh_mhz / 1000.0);
	}
	return buf;
}

const char *format_wall_time(uint64_t sec, char *buf, size_t size) {
	time_t t = (time_t)sec;
	struct tm tm;
	if (sec == 0 || localtime_r(&t, &tm) == NULL ||
			strftime(buf, size, "%Y-%m-%d %H:%M:%S", &tm) == 0) {
		snprintf(buf, size, "an unknown time");
	}
	return buf;
}

#define COUNT(array) (sizeof(array) / sizeof((array)[0]))

/* The history table's mode, e.g. "3840x2160@60.000". */
static const char *format_mode_short(const struct mode *mode, char *buf, size_t size) {
	if (mode_is_none(mode)) {
		return "none";
	}
	snprintf(buf, size, "%" PRId32 "x%" PRId32 "@%.3f", mode->width,
		mode->height, mode->refresh_mhz / 1000.0);
	return buf;
}

/* DisplayPort's names for its rates (e.g. "HBR2 x4"), else Mbit/s. */
static const char *format_link(uint32_t lanes, uint32_t rate_mbps, char *buf,
		size_t size) {
	static const struct { uint32_t mbps; const char *name; } rates[] = {
		{ 1620, "RBR" }, { 2700, "HBR" }, { 5400, "HBR2" }, { 8100, "HBR3" },
		{ 10000, "UHBR10" }, { 13500, "UHBR13.5" }, { 20000, "UHBR20" },
	};
	if (lanes == 0) {
		return "unknown";
	}
	for (size_t i = 0; i < COUNT(rates); i++) {
		if (rates[i].mbps == rate_mbps) {
			snprintf(buf, size, "%s x%" PRIu32, rates[i].name, lanes);
			return buf;
		}
	}
	snprintf(buf, size, "%" PRIu32 " Mbit/s x%" PRIu32, rate_mbps, lanes);
	return buf;
}

static void print_incident(const struct incident *incident) {
	char when[64], from[64], to[64], link_from[64], link_to[64];
	printf("%-19s  %-9s  %-12s  %-16s -> %-16s  %-11s -> %-11s  %" PRIu32 " ms",
		format_wall_time(incident->sec, when, sizeof(when)),
		incident_outcome_name(incident->outcome),
		incident_reason_name(incident->reason),
		format_mode_short(&incident->from, from, sizeof(from)),
		format_mode_short(&incident->to, to, sizeof(to)),
		format_link(incident->from_lanes, incident->from_rate_mbps,
			link_from, sizeof(link_from)),
		format_link(incident->to_lanes, incident->to_rate_mbps,
			link_to, sizeof(link_to)),
		incident->duration_ms);
}

void text_print_history(const struct connector *conn) {
	const struct link_state *state = &conn->current;
	if (state->n_incidents == 0) {
		printf("%s: no incidents\n", conn->name);
		return;
	}
	printf("%s: %zu incident%s, oldest first\n", conn->name,
		state->n_incidents, state->n_incidents == 1 ? "" : "s");
	printf("  %-19s  %-9s  %-12s  %-16s    %-16s  %-11s    %-11s  %s\n",
		"BEGAN", "OUTCOME", "REASON", "MODE BEFORE", "AFTER",
		"LINK BEFORE", "AFTER", "TOOK");
	for (size_t i = 0; i < state->n_incidents; i++) {
		printf("  ");
		print_incident(&state->incidents[i]);
		putchar('\n');
	}
}

static void print_fallback(const struct fallback *fallback) {
	char from[64], to[64];
	printf("%s -> %s (%s) at %" PRIu64 ".%03" PRIu32 " s",
		format_mode(&fallback->from, from, sizeof(from)),
		format_mode(&fallback->to, to, sizeof(to)),
		reason_name(fallback->reason), fallback->sec,
		fallback->nsec / 1000000);
}

/*
 * One skipped mode and how to try it now: a retry tries the requested
 * mode, a replug every mode.
 */
static void print_skipped(const struct connector *conn,
		const struct skipped_mode *skipped) {
	char mode[64], when[64];
	printf("%s, last failed %s; ",
		format_mode(&skipped->mode, mode, sizeof(mode)),
		format_wall_time(skipped->last_failed, when, sizeof(when)));
	if (mode_is_requested(&conn->current, &skipped->mode)) {
		printf("try it now: linkctl retry %s", conn->name);
	} else {
		printf("tried again after a replug");
	}
}

static void print_link(const struct link_state *state) {
	if (state->lanes != 0) {
		printf("%" PRIu32 " lanes at %" PRIu32 " Mbit/s", state->lanes,
			state->rate_mbps);
	} else {
		printf("unknown");
	}
}

void text_print_setting(const struct setting *setting) {
	printf("%s %s (%s%s%s)", setting->key ? setting->key : "?",
		setting->value ? setting->value : "?", setting_source_name(setting->source),
		setting->origin != NULL ? " " : "", setting->origin != NULL ? setting->origin : "");
}

/* "4 of 4 lanes locked, aligned, in sync; symbol errors 0 0 0 12 a minute" */
static void print_sink(const struct link_state *state) {
	const struct sink *sink = &state->sink;
	if (!(sink->flags & ZLG_LINK_CONNECTOR_V1_SINK_FLAGS_READABLE)) {
		printf("not readable");
		return;
	}
	if (sink->flags & ZLG_LINK_CONNECTOR_V1_SINK_FLAGS_NOT_DECODED) {
		printf("128b/132b link, lock and errors not decoded");
		return;
	}
	int locked = 0;
	for (uint32_t lane = 0; lane < 4; lane++) {
		locked += (sink->lanes_locked >> lane) & 1;
	}
	printf("%d of %" PRIu32 " lanes locked, %saligned, %sin sync", locked,
		state->lanes, sink->flags & ZLG_LINK_CONNECTOR_V1_SINK_FLAGS_ALIGNED ?
		"" : "not ", sink->flags & ZLG_LINK_CONNECTOR_V1_SINK_FLAGS_IN_SYNC ?
		"" : "not ");
	if (sink->n_rates == 0) {
		printf("; symbol errors: no minute counted yet");
		return;
	}
	printf("; symbol errors a minute per lane:");
	for (size_t lane = 0; lane < sink->n_rates; lane++) {
		if (sink->rates[lane] == UINT32_MAX) {
			printf(" -");
		} else {
			printf(" %" PRIu32, sink->rates[lane]);
		}
	}
	if (sink->flags & ZLG_LINK_CONNECTOR_V1_SINK_FLAGS_LINK_ERRORS) {
		printf(" (above the threshold: link-errors)");
	}
}

void text_print_connector(const struct connector *conn) {
	const struct link_state *state = &conn->current;
	char buf[64];
	printf("%s", conn->name);
	if (state->description != NULL) {
		printf(" \"%s\"", state->description);
	}
	printf("\n  Connected: %s\n", state->connected ? "yes" : "no");
	printf("  Link status: %s\n", link_status_name(state->link_status));
	printf("  State: %s\n", state_name(state->state));
	printf("  Current mode: %s\n", format_mode(&state->current, buf, sizeof(buf)));
	printf("  Requested mode: %s\n",
		format_mode(&state->requested, buf, sizeof(buf)));
	printf("  Link: ");
	print_link(state);
	if (state->has_sink) {
		printf("\n  Sink: ");
		print_sink(state);
	}
	printf("\n  Last fallback: ");
	if (state->has_fallback) {
		print_fallback(&state->fallback);
	} else {
		printf("none");
	}
	if (state->has_skipped) {
		printf("\n  Skipped modes:%s", state->n_skipped == 0 ? " none" : "");
		for (size_t i = 0; i < state->n_skipped; i++) {
			printf("\n    ");
			print_skipped(conn, &state->skipped[i]);
		}
	}
	if (conn->n_settings > 0) {
		printf("\n  Settings:");
		for (size_t i = 0; i < conn->n_settings; i++) {
			printf("\n    ");
			text_print_setting(&conn->settings[i]);
		}
	}
	printf("\n  Allowed modes:\n");
	for (size_t i = 0; i < state->n_modes; i++) {
		const struct mode *mode = &state->modes[i];
		printf("    %s%s\n", format_mode(mode, buf, sizeof(buf)),
			(mode->flags & ZLG_LINK_CONNECTOR_V1_MODE_FLAGS_PREFERRED) ?
			" (preferred)" : "");
	}
}

static void print_added(const struct link_state *state) {
	char current[64], requested[64];
	printf(" %s, link-status %s, state %s, current %s, requested %s",
		state->connected ? "connected" : "disconnected",
		link_status_name(state->link_status), state_name(state->state),
		format_mode(&state->current, current, sizeof(current)),
		format_mode(&state->requested, requested, sizeof(requested)));
}

void text_print_change(double now, const struct connector *conn,
		enum change change) {
	const struct link_state *state = &conn->current;
	char buf[64];
	printf("%.6f %s %s", now, conn->name, change_name(change));
	switch (change) {
	case CHANGE_DESCRIPTION:
		printf(" %s", state->description != NULL ? state->description : "");
		break;
	case CHANGE_CONNECTION:
		printf(" %s", state->connected ? "connected" : "disconnected");
		break;
	case CHANGE_LINK_STATUS:
		printf(" %s", link_status_name(state->link_status));
		break;
	case CHANGE_STATE:
		printf(" %s", state_name(state->state));
		break;
	case CHANGE_REQUESTED:
		printf(" %s", format_mode(&state->requested, buf, sizeof(buf)));
		break;
	case CHANGE_CURRENT:
		printf(" %s", format_mode(&state->current, buf, sizeof(buf)));
		break;
	case CHANGE_MODES:
		printf(" %zu modes", state->n_modes);
		break;
	case CHANGE_LINK:
		putchar(' ');
		print_link(state);
		break;
	case CHANGE_FALLBACK:
		putchar(' ');
		print_fallback(&state->fallback);
		break;
	case CHANGE_SKIPPED:
		printf(" %zu", state->n_skipped);
		for (size_t i = 0; i < state->n_skipped; i++) {
			printf(i == 0 ? ": " : "; ");
			print_skipped(conn, &state->skipped[i]);
		}
		break;
	case CHANGE_ADDED:
		print_added(state);
		break;
	case CHANGE_REMOVED:
		break;
	case CHANGE_INCIDENT:
		putchar(' ');
		print_incident(&state->incidents[state->n_incidents - 1]);
		break;
	case CHANGE_SETTINGS:
		for (size_t i = 0; i < conn->n_settings; i++) {
			printf(i == 0 ? " " : ", ");
			text_print_setting(&conn->settings[i]);
		}
		break;
	case CHANGE_SINK:
		putchar(' ');
		print_sink(state);
		break;
	}
	putchar('\n');
}
