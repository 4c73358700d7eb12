/*
 * linkctl watch --waybar: the line waybar's custom module reads with
 * "return-type": "json", printed at start and whenever it changes:
 *
 *   { "text": "DP-1 3840x2160@30", "tooltip": "DP-1 (Dell U2720Q): the
 *     cable no longer carries ...", "class": "degraded", "alt": "degraded" }
 *
 * text    the connected connectors whose link is not good, each with the
 *         mode it runs, ", " between them; empty when every link is good
 *         (waybar's hide-empty-text then hides the module)
 * tooltip one sentence per connector (tell.c), one per line
 * class   the worst link's: good, degraded, flapping or failed
 * alt     the worst link's state as linkctl names it (good, bad,
 *         retraining, degraded, flapping, failed): format-icons keys
 *
 * waybar renders text and tooltip as Pango markup: both are escaped (the
 * monitor's name comes from its EDID). json-c escapes the rest; linkctl
 * hands it UTF-8 only (connection.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>
#include "linkctl.h"

/* Appends s to *text after sep (unless *text is empty); false out of memory. */
static bool append(char **text, const char *sep, const char *s) {
	size_t len = strlen(*text), sep_len = len > 0 ? strlen(sep) : 0;
	char *grown = realloc(*text, len + sep_len + strlen(s) + 1);
	if (grown == NULL) {
		return false;
	}
	memcpy(grown + len, sep, sep_len);
	strcpy(grown + len + sep_len, s);
	*text = grown;
	return true;
}

/* conn's part of the text: "DP-1 3840x2160@30"; false out of memory. */
static bool append_short(char **text, const struct connector *conn) {
	char mode[64];
	tell_mode(&conn->current.current, mode, sizeof(mode));
	return append(text, ", ", conn->name != NULL ? conn->name : "?") &&
		append(text, " ", mode);
}

/*
 * The text and tooltip, plain, and the connector with the worst link (the
 * first of them); false out of memory.
 */
static bool gather(const struct linkctl *ctl, char **text, char **tooltip,
		const struct connector **worst) {
	enum tell_class worst_class = TELL_GOOD;
	for (const struct connector *conn = ctl->connectors; conn != NULL;
			conn = conn->next) {
		enum tell_class class = tell_class(&conn->current);
		if (*worst == NULL || class > worst_class) {
			*worst = conn;
			worst_class = class;
		}
		if (class != TELL_GOOD && !append_short(text, conn)) {
			return false;
		}
		char *sentence = tell_sentence(conn);
		bool ok = sentence != NULL && append(tooltip, "\n", sentence);
		free(sentence);
		if (!ok) {
			return false;
		}
	}
	return true;
}

char *waybar_line(const struct linkctl *ctl) {
	char *text = strdup(""), *tooltip = strdup("");
	char *text_markup = NULL, *tooltip_markup = NULL, *line = NULL;
	const struct connector *worst = NULL;
	if (text == NULL || tooltip == NULL ||
			!gather(ctl, &text, &tooltip, &worst) ||
			(text_markup = tell_markup(text)) == NULL ||
			(tooltip_markup = tell_markup(tooltip)) == NULL) {
		goto out;
	}
	const struct link_state *state = worst != NULL ? &worst->current : NULL;
	struct json_object *obj = json_object_new_object();
	json_object_object_add(obj, "text", json_object_new_string(text_markup));
	json_object_object_add(obj, "tooltip",
		json_object_new_string(tooltip_markup));
	json_object_object_add(obj, "class", json_object_new_string(
		tell_class_name(state != NULL ? tell_class(state) : TELL_GOOD)));
	json_object_object_add(obj, "alt", json_object_new_string(
		state != NULL && state->connected ? state_name(state->state) : "good"));
	const char *json = json_object_to_json_string_ext(obj,
		JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
	if (json != NULL) {
		line = strdup(json);
	}
	json_object_put(obj);
out:
	free(text);
	free(tooltip);
	free(text_markup);
	free(tooltip_markup);
	return line;
}

bool waybar_print(struct linkctl *ctl) {
	char *line = waybar_line(ctl);
	if (line == NULL) {
		return false;
	}
	if (ctl->waybar_line != NULL && strcmp(line, ctl->waybar_line) == 0) {
		free(line);
		return true;
	}
	printf("%s\n", line);
	free(ctl->waybar_line);
	ctl->waybar_line = line;
	return true;
}
