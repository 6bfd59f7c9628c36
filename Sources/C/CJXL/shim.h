// libjxl's C API (0.7 on Debian 12): decoding and encoding, single-threaded, so no libjxl_threads.
#include <jxl/decode.h>
#include <jxl/encode.h>
