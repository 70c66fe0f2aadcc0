/* Strict parsers for the numbers a user types on the command line: process
 * ids, seconds and counts. Plain decimal digits only (no sign, no blanks, no
 * exponent, no hex, no locale), range-checked, never wrapping: "1e0" is not
 * a pid and "99999999999" is not pid 1410065407. */
#ifndef ND_CORE_NUMPARSE_H
#define ND_CORE_NUMPARSE_H

#include <sys/types.h>

/* The largest pid this kernel hands out: /proc/sys/kernel/pid_max, or
 * 4194304 (the kernel's ceiling) when that cannot be read. */
long nd_pid_max(void);

/* "1".."pid_max": 0, or -EINVAL (not digits) / -ERANGE (0 or above pid_max). */
int nd_parse_pid(const char *s, pid_t *out);

/* Digits with an optional fraction: "2", "0.5", ".5", "5." (no unit
 * suffix: no option ever took one). 0, or -EINVAL / -ERANGE (too long to
 * be a finite number). */
int nd_parse_seconds(const char *s, double *out);

/* A duration: seconds as nd_parse_seconds reads them, with an optional
 * unit s, m or h ("90", "90s", "30m", "1.5h"). 0, or -EINVAL / -ERANGE. */
int nd_parse_duration(const char *s, double *out);

/* A whole number of decimal digits that fits an unsigned long: 0, or
 * -EINVAL / -ERANGE. */
int nd_parse_count(const char *s, unsigned long *out);

#endif
