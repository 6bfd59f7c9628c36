#ifndef THUMBD_PNG_BRIDGE_H
#define THUMBD_PNG_BRIDGE_H
/* Placeholder: the libpng bridge (setjmp kept inside C) is filled in with the PNG decoder. */
int thumbd_png_bridge_version(void);
#endif
