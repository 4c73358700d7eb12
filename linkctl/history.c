/*
 * linkctl history [NAME]: the incidents the compositor kept for each
 * connector (protocol version 3), oldest first, as a table or as JSON.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include "linkctl.h"

static const char *const reason_names[] = {
	"mode-pruned", "test-failed", "known-bad", "flapping", "link-bad",
	"no-modes", "all-rejected", "probe-failed", "retry", "sink-unlocked",
	"link-errors",
};
static const char *const outcome_names[] = {
	"retrained", "restored", "degraded", "held", "failed", "gone", "step-up",
};

#define COUNT(array) (sizeof(array) / sizeof((array)[0]))

const char *incident_reason_name(uint32_t reason) {
	return reason < COUNT(reason_names) ? reason_names[reason] : "unknown";
}

const char *incident_outcome_name(uint32_t outcome) {
	return outcome < COUNT(outcome_names) ? outcome_names[outcome] : "unknown";
}

static const char *format_mode(const struct mode *mode, char *buf, size_t size) {
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

void print_incident(const struct incident *incident) {
	char when[64], from[64], to[64], link_from[64], link_to[64];
	printf("%-19s  %-9s  %-12s  %-16s -> %-16s  %-11s -> %-11s  %" PRIu32 " ms",
		format_wall_time(incident->sec, when, sizeof(when)),
		incident_outcome_name(incident->outcome),
		incident_reason_name(incident->reason),
		format_mode(&incident->from, from, sizeof(from)),
		format_mode(&incident->to, to, sizeof(to)),
		format_link(incident->from_lanes, incident->from_rate_mbps,
			link_from, sizeof(link_from)),
		format_link(incident->to_lanes, incident->to_rate_mbps,
			link_to, sizeof(link_to)),
		incident->duration_ms);
}

static void print_history(const struct connector *conn) {
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

int linkctl_history(struct linkctl *ctl, const char *name) {
	if (ctl->version < 3) {
		fprintf(stderr, "linkctl: the compositor speaks linkguard-link-v1 "
			"version %" PRIu32 ", which keeps no history (version 3 does)\n",
			ctl->version);
		return EXIT_NO_HISTORY;
	}
	struct connector *only = NULL;
	if (name != NULL) {
		only = linkctl_find(ctl, name);
		if (only == NULL) {
			fprintf(stderr, "linkctl: no connector named %s\n", name);
			return EXIT_NO_CONNECTOR;
		}
	}
	if (ctl->json) {
		return json_print_history(ctl, only) ? EXIT_OK : EXIT_FAILURE;
	}
	for (struct connector *c = ctl->connectors; c != NULL; c = c->next) {
		if (only == NULL || c == only) {
			print_history(c);
		}
	}
	return EXIT_OK;
}
