#ifndef HUSH_CQRENCODE_SHIM_H
#define HUSH_CQRENCODE_SHIM_H
#include <qrencode.h>
#endif
