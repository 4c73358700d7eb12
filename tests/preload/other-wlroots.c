/*
 * Stands for another wlroots minor version loaded in the compositor: the
 * preload must see a libwlroots it was not built for and stay out.
 */
int other_wlroots_marker(void);

int other_wlroots_marker(void) {
	return 0;
}
