/*
 * Incidents to the systemd journal (include/core/journal.h) through
 * libsystemd, which linkctl already uses for sd-bus. A system without
 * journald (a container, another init) gets no entry and no error.
 */
#define _GNU_SOURCE // asprintf
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>
#include <systemd/sd-journal.h>
#include <linkguard/log.h>
#include <core/journal.h>

// linkguard(7), JOURNAL: the one id of every incident entry.
#define INCIDENT_MESSAGE_ID "5c548605d3584d7ca4d0bf7a8cd169f1"

// Where journald listens for native entries (sd_journal_sendv writes there).
#define JOURNAL_SOCKET "/run/systemd/journal/socket"

enum { MAX_FIELDS = 12 }; // as many as journal_send_incident() adds

struct fields {
	struct iovec iov[MAX_FIELDS];
	int len;
	bool failed;
};

/* Adds KEY=value; a NULL value adds nothing (the field is unknown). */
static void add_field(struct fields *fields, const char *key, const char *value) {
	if (value == NULL || fields->failed) {
		return;
	}
	char *field;
	if (asprintf(&field, "%s=%s", key, value) < 0) {
		fields->failed = true;
		return;
	}
	fields->iov[fields->len++] = (struct iovec){ .iov_base = field, .iov_len = strlen(field) };
}

/* syslog(3) priorities: a failure warns, a fallback is a notice. */
static const char *priority(enum lg_incident_outcome outcome) {
	switch (outcome) {
	case LG_INCIDENT_FAILED:
		return "4";
	case LG_INCIDENT_DEGRADED:
	case LG_INCIDENT_HELD:
		return "5";
	default:
		return "6";
	}
}

void journal_send_incident(const struct journal_incident *incident) {
	if (access(JOURNAL_SOCKET, W_OK) != 0) {
		return;
	}
	char message[256], duration[16];
	snprintf(message, sizeof(message), "%s: %s", incident->connector, incident->message);
	snprintf(duration, sizeof(duration), "%" PRIu32, incident->duration_ms);
	struct fields fields = {0};
	add_field(&fields, "MESSAGE_ID", INCIDENT_MESSAGE_ID);
	add_field(&fields, "MESSAGE", message);
	add_field(&fields, "PRIORITY", priority(incident->outcome));
	add_field(&fields, "LINKGUARD_CONNECTOR", incident->connector);
	add_field(&fields, "LINKGUARD_MONITOR", incident->monitor);
	add_field(&fields, "LINKGUARD_OUTCOME", lg_incident_outcome_name(incident->outcome));
	add_field(&fields, "LINKGUARD_REASON", lg_incident_reason_name(incident->reason));
	add_field(&fields, "LINKGUARD_MODE_BEFORE", incident->mode_before);
	add_field(&fields, "LINKGUARD_MODE_AFTER", incident->mode_after);
	add_field(&fields, "LINKGUARD_LINK_BEFORE", incident->link_before);
	add_field(&fields, "LINKGUARD_LINK_AFTER", incident->link_after);
	add_field(&fields, "LINKGUARD_DURATION_MS", duration);
	int ret = fields.failed ? -ENOMEM : sd_journal_sendv(fields.iov, fields.len);
	if (ret < 0) {
		lg_log(LG_ERROR, "journal: the incident was not sent: %s", strerror(-ret));
	}
	for (int i = 0; i < fields.len; i++) {
		free(fields.iov[i].iov_base);
	}
}
