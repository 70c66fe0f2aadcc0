/* The per-user folder where npu-doctor keeps what it may reuse between runs:
 * the compiled knowledge base and the host's redaction key. */
#ifndef ND_CORE_CACHEDIR_H
#define ND_CORE_CACHEDIR_H

/* NPU_DOCTOR_CACHE_DIR (empty: no cache), else $XDG_CACHE_HOME/npu-doctor,
 * else $HOME/.cache/npu-doctor. malloc'd, or NULL when there is none. */
char *nd_cache_dir(void);
/* Creates the folder (and its parent) with mode 0700 when missing; 0 or
 * -errno, -EPERM when nd_cache_dir_check refuses it. The parent is made
 * only in a folder of ours and must be ours or root's, reached through no
 * link of another user: root with another user's HOME makes nothing in it
 * and follows no link of theirs. */
int nd_cache_dir_make(const char *dir);
/* 0 when dir is a folder of ours (not a link) that nobody else can write,
 * the only kind whose contents are trusted; else -errno or -EPERM. */
int nd_cache_dir_check(const char *dir);

/* Opens dir (O_DIRECTORY, not through a link as its last component) when
 * the folder opened is one nd_cache_dir_check trusts; the descriptor or
 * -errno / -EPERM. Read and make files in it with the *at calls. */
int nd_cache_dir_open(const char *dir);
/* Opens name in the folder dirfd for reading when it is a regular file of
 * ours (not a link) that nobody else can write and that has no second
 * name; the descriptor or -errno / -EPERM. */
int nd_cache_file_open(int dirfd, const char *name);

#endif
