/* Trimmed patchlevel.h */
#define PY_MAJOR_VERSION 3
#define PY_MINOR_VERSION 10

/* Version as a string */
#define PY_VERSION "3.10.14"
