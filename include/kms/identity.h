#ifndef KMS_IDENTITY_H
#define KMS_IDENTITY_H

#include <stddef.h>

/*
 * "DEL-A0B1-ABC123": manufacturer, product code and serial from an EDID
 * blob (malloc'ed), or NULL when the blob does not parse.
 */
char *drm_identity_from_edid(const void *edid, size_t size);

#endif
