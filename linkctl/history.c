/*
 * linkctl history [NAME]: the incidents the compositor kept for each
 * connector (protocol version 3), oldest first, as a table or as JSON.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include "linkctl.h"

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
			text_print_history(c);
		}
	}
	return EXIT_OK;
}
