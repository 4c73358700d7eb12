/* Where linkguard keeps its files, by the XDG base directory rules. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linkguard/config.h>
#include <linkguard/manager.h>

/*
 * $XDG_VAR/leaf, else $HOME/home_dir/leaf (malloc'ed); relative values are
 * ignored, as the specification asks. NULL when neither is usable.
 */
static char *xdg_path(const char *xdg_var, const char *home_dir, const char *leaf) {
	const char *xdg = getenv(xdg_var);
	const char *home = getenv("HOME");
	bool use_xdg = xdg != NULL && xdg[0] == '/';
	const char *base = use_xdg ? xdg : home;
	if (base == NULL || base[0] != '/') {
		return NULL;
	}
	const char *middle = use_xdg ? "" : home_dir;
	size_t len = strlen(base) + strlen(middle) + strlen(leaf) + 1;
	char *path = malloc(len);
	if (path != NULL) {
		snprintf(path, len, "%s%s%s", base, middle, leaf);
	}
	return path;
}

char *lg_default_state_dir(void) {
	return xdg_path("XDG_STATE_HOME", "/.local/state", "/linkguard");
}

char *lg_default_config_path(void) {
	const char *path = getenv("LINKGUARD_CONFIG");
	if (path != NULL && path[0] != '\0') {
		return strdup(path);
	}
	return xdg_path("XDG_CONFIG_HOME", "/.config", "/linkguard/config");
}
