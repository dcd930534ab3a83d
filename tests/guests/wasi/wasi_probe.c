/* A WASI reactor that exercises the WASI host through wasi-libc, one export per scenario.
 * tests/wasi/wasi_guest_test.cc instantiates it with a WasiHost and calls the exports.
 * Exports print what they observe to stdout and return 0 on success or an errno value. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <wasi/api.h>

#define EXPORT(name) __attribute__((export_name(name)))

extern char** environ;

static int kept_fd = -1;

EXPORT("hello") int hello(void) {
  printf("hello from the guest\n");
  printf("second line\n");
  fprintf(stderr, "to stderr\n");
  fflush(stdout);
  fflush(stderr);
  return 0;
}

EXPORT("print_args_env") int print_args_env(void) {
  for (char** e = environ; e && *e; e++) printf("env %s\n", *e);
  fflush(stdout);
  return 0;
}

/* Writes `kib` KiB through stdout, 1 KiB at a time, flushing each time. */
EXPORT("flood") int flood(int kib) {
  char line[1024];
  memset(line, 'x', sizeof line - 1);
  line[sizeof line - 1] = '\n';
  for (int i = 0; i < kib; i++) {
    fwrite(line, 1, sizeof line, stdout);
    fflush(stdout);
  }
  return 0;
}

/* Tries paths that leave the preopens; prints one errno per path, returns how many opened. */
EXPORT("escapes") int escapes(void) {
  static const char* paths[] = {"../../etc/passwd",
                                "/etc/passwd",
                                "/workspace/../etc/passwd",
                                "/workspace/../../etc/passwd",
                                "/stdlib/../../etc/passwd",
                                "/dev/../etc/passwd",
                                "/tmp/x",
                                "/",
                                "etc/passwd"};
  int opened = 0;
  for (size_t i = 0; i < sizeof paths / sizeof *paths; i++) {
    errno = 0;
    int fd = open(paths[i], O_RDONLY);
    if (fd >= 0) {
      opened++;
      printf("%s opened\n", paths[i]);
      close(fd);
    } else {
      printf("%s errno %d\n", paths[i], errno);
    }
  }
  fflush(stdout);
  return opened;
}

EXPORT("keep_open") int keep_open(void) {
  kept_fd = open("/workspace/kept.txt", O_CREAT | O_WRONLY, 0644);
  return kept_fd < 0 ? errno : 0;
}

EXPORT("close_kept") int close_kept(void) {
  if (kept_fd < 0) return EBADF;
  int r = close(kept_fd);
  kept_fd = -1;
  return r == 0 ? 0 : errno;
}

/* mkdir, write, append, read back, rename, list, unlink through stdio and POSIX calls. */
EXPORT("files") int files(void) {
  if (mkdir("/workspace/out", 0755) != 0) return errno;
  FILE* f = fopen("/workspace/out/a.txt", "w");
  if (!f) return errno;
  fputs("first line\n", f);
  fclose(f);
  f = fopen("/workspace/out/a.txt", "a");
  if (!f) return errno;
  fputs("appended\n", f);
  fclose(f);
  char buf[128] = {0};
  f = fopen("/workspace/out/a.txt", "r");
  if (!f) return errno;
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  printf("read %zu: %s", n, buf);
  if (rename("/workspace/out/a.txt", "/workspace/out/b.txt") != 0) return errno;
  if (chdir("/workspace/out") != 0) return errno;
  f = fopen("relative.txt", "w");
  if (!f) return errno;
  fputs("relative", f);
  fclose(f);
  DIR* d = opendir(".");
  if (!d) return errno;
  struct dirent* e;
  while ((e = readdir(d)) != NULL) printf("entry %s\n", e->d_name);
  closedir(d);
  struct stat st;
  if (stat("b.txt", &st) != 0) return errno;
  printf("size %lld\n", (long long)st.st_size);
  if (unlink("/workspace/out/relative.txt") != 0) return errno;
  fflush(stdout);
  return 0;
}

/* Reads /stdlib/lib/hello.txt and lists /stdlib/lib. */
EXPORT("stdlib") int stdlib_read(void) {
  FILE* f = fopen("/stdlib/lib/hello.txt", "r");
  if (!f) return errno;
  char buf[64] = {0};
  fgets(buf, sizeof buf, f);
  fclose(f);
  printf("stdlib says %s", buf);
  errno = 0;
  f = fopen("/stdlib/lib/hello.txt", "w");
  printf("write open errno %d\n", f ? 0 : errno);
  if (f) fclose(f);
  errno = 0;
  int r = mkdir("/stdlib/newdir", 0755);
  printf("mkdir errno %d\n", r == 0 ? 0 : errno);
  f = fopen("/dev/null", "w");
  printf("dev null %s\n", f ? "opened" : strerror(errno));
  if (f) {
    fputs("discarded", f);
    fclose(f);
  }
  fflush(stdout);
  return 0;
}

/* Reports what a disabled workspace looks like. */
EXPORT("workspace_access") int workspace_access(void) {
  errno = 0;
  FILE* f = fopen("/workspace/data.txt", "r");
  int read_errno = f ? 0 : errno;
  if (f) fclose(f);
  errno = 0;
  f = fopen("/workspace/new.txt", "w");
  int write_errno = f ? 0 : errno;
  if (f) fclose(f);
  errno = 0;
  int mkdir_errno = mkdir("/workspace/d", 0755) == 0 ? 0 : errno;
  errno = 0;
  DIR* d = opendir("/workspace");
  int list_errno = d ? 0 : errno;
  if (d) closedir(d);
  printf("read %d write %d mkdir %d list %d\n", read_errno, write_errno, mkdir_errno, list_errno);
  fflush(stdout);
  return 0;
}

EXPORT("exit_with") void exit_with(int code) {
  printf("exiting\n");
  fflush(stdout);
  exit(code);
}

EXPORT("clock_and_random") int clock_and_random(void) {
  struct timespec ts;
  if (clock_gettime(CLOCK_REALTIME, &ts) != 0) return errno;
  unsigned char bytes[16];
  if (getentropy(bytes, sizeof bytes) != 0) return errno;
  int nonzero = 0;
  for (size_t i = 0; i < sizeof bytes; i++) nonzero += bytes[i] != 0;
  printf("time %lld random %d\n", (long long)ts.tv_sec, nonzero > 0);
  fflush(stdout);
  return 0;
}

/* random_get straight into a buffer spanning several pages (the host test write-protects them
 * first, as dirty tracking does); returns the WASI errno. */
static unsigned char random_pages[3 * 65536];
EXPORT("random_into_pages") int random_into_pages(void) {
  int err = __wasi_random_get(random_pages, sizeof random_pages);
  if (err != 0) return err;
  size_t nonzero = 0;
  for (size_t i = 0; i < sizeof random_pages; i++) nonzero += random_pages[i] != 0;
  return nonzero > sizeof random_pages / 2 ? 0 : -1;
}

/* Passes a pointer outside linear memory straight to the WASI call (wasi-libc would check
 * nothing either): the host must answer EFAULT, not crash. */
EXPORT("bad_pointer") int bad_pointer(void) {
  __wasi_ciovec_t iov = {(const uint8_t*)0xfffffff0u, 64};
  __wasi_size_t written = 0;
  return __wasi_fd_write(1, &iov, 1, &written);
}
