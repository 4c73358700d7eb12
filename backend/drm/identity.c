/*
 * A monitor's identity from its EDID, parsed with libdisplay-info (what
 * wlroots itself uses): the key under which linkguard remembers the modes a
 * monitor does not hold, so the same monitor on another boot, or another
 * port, is known again and a different one is not.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libdisplay-info/edid.h>
#include <libdisplay-info/info.h>
#include <linkguard/log.h>
#include <kms/identity.h>

/* The serial number string descriptor, if the EDID has one. */
static const char *serial_string(const struct di_edid *edid) {
	const struct di_edid_display_descriptor *const *desc =
		di_edid_get_display_descriptors(edid);
	for (; *desc != NULL; desc++) {
		if (di_edid_display_descriptor_get_tag(*desc) ==
				DI_EDID_DISPLAY_DESCRIPTOR_PRODUCT_SERIAL) {
			return di_edid_display_descriptor_get_string(*desc);
		}
	}
	return NULL;
}

char *drm_identity_from_edid(const void *edid, size_t size) {
	struct di_info *info = di_info_parse_edid(edid, size);
	if (info == NULL) {
		lg_log(LG_DEBUG, "drm: EDID of %zu bytes does not parse", size);
		return NULL;
	}
	const struct di_edid *parsed = di_info_get_edid(info);
	char buf[128];
	int len = -1;
	if (parsed != NULL) {
		const struct di_edid_vendor_product *vp =
			di_edid_get_vendor_product(parsed);
		const char *serial = serial_string(parsed);
		len = serial != NULL ?
			snprintf(buf, sizeof(buf), "%.3s-%04" PRIX16 "-%s",
				vp->manufacturer, vp->product, serial) :
			snprintf(buf, sizeof(buf), "%.3s-%04" PRIX16 "-%" PRIu32,
				vp->manufacturer, vp->product, vp->serial);
	}
	di_info_destroy(info);
	return len > 0 && (size_t)len < sizeof(buf) ? strdup(buf) : NULL;
}
