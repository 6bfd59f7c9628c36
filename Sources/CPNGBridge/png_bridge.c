#include "png_bridge.h"
int thumbd_png_bridge_version(void) { return 1; }
