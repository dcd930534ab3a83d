/* os.date's time functions (lua_wasi_user.h routes loslib.c's calls here): %Z of a date that
 * gmtime made is "GMT", as with Debian's glibc; everything else is wasi-libc's. */
#include <string.h>
#include <time.h>

/* The struct tm the last l_gmtime filled: os_date formats it right after, with the same pointer. */
static const struct tm* g_utc_tm;

struct tm* sandbox_lua_gmtime(const time_t* t, struct tm* result);
struct tm* sandbox_lua_localtime(const time_t* t, struct tm* result);
size_t sandbox_lua_strftime(char* s, size_t max, const char* format, const struct tm* tm);

struct tm* sandbox_lua_gmtime(const time_t* t, struct tm* result) {
  struct tm* tm = gmtime_r(t, result);
  g_utc_tm = tm;
  return tm;
}

struct tm* sandbox_lua_localtime(const time_t* t, struct tm* result) {
  g_utc_tm = NULL;
  return localtime_r(t, result);
}

size_t sandbox_lua_strftime(char* s, size_t max, const char* format, const struct tm* tm) {
  static const char kGmt[] = "GMT";
  if (tm != NULL && tm == g_utc_tm && strcmp(format, "%Z") == 0) {
    if (max < sizeof kGmt) return 0;
    memcpy(s, kGmt, sizeof kGmt);
    return sizeof kGmt - 1;
  }
  return strftime(s, max, format, tm);
}
