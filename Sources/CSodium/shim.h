#ifndef HUSH_CSODIUM_SHIM_H
#define HUSH_CSODIUM_SHIM_H
#include <sodium.h>
#endif
