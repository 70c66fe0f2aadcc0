/* Temporary stand-ins until the proc layer lands (issue 3). */
#include <errno.h>

#include "proc/footprint.h"
#include "proc/proc.h"
