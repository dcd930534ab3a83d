#include "wasi/random_page.h"

#include <cerrno>
#include <cstring>

#include <sys/mman.h>
#include <sys/random.h>
#include <unistd.h>

namespace sandbox::wasi {
namespace {

constexpr std::size_t kPageBytes = 4096;

// getrandom for `n` bytes, whatever the size and however often it is interrupted.
bool fill(std::uint8_t* out, std::size_t n) {
  while (n > 0) {
    const std::size_t chunk = n < 65'536 ? n : 65'536;
    const ssize_t got = getrandom(out, chunk, 0);
    if (got < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    out += got;
    n -= static_cast<std::size_t>(got);
  }
  return true;
}

// The page of one thread: the bytes not handed out yet are bytes[0, left). A fork leaves the
// child a page of zeros (MADV_WIPEONFORK), so `left` reads 0 there.
struct Page {
  std::size_t left;
  std::uint8_t bytes[kPageBytes - sizeof(std::size_t)];
};
static_assert(sizeof(Page) == kPageBytes);

class ThreadPage {
 public:
  ThreadPage() = default;
  ThreadPage(const ThreadPage&) = delete;
  ThreadPage& operator=(const ThreadPage&) = delete;
  ~ThreadPage() {
    if (page_ != nullptr) {
      explicit_bzero(page_, kPageBytes);
      munmap(page_, kPageBytes);
    }
  }

  // The page, made on first use; null when it cannot be made (then getrandom serves directly).
  Page* get() {
    if (page_ == nullptr && !unavailable_) {
      void* p =
          mmap(nullptr, kPageBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (p == MAP_FAILED) {
        unavailable_ = true;
      } else if (madvise(p, kPageBytes, MADV_WIPEONFORK) != 0) {
        munmap(p, kPageBytes);  // a kernel without it (before 4.14): never keep bytes across fork
        unavailable_ = true;
      } else {
        page_ = static_cast<Page*>(p);
      }
    }
    return page_;
  }

 private:
  Page* page_ = nullptr;
  bool unavailable_ = false;
};

}  // namespace

bool os_random(std::uint8_t* out, std::size_t n) {
  thread_local ThreadPage thread_page;
  Page* page = n > kRandomDirectBytes ? nullptr : thread_page.get();
  if (page == nullptr) return fill(out, n);
  if (page->left < n) {
    if (!fill(page->bytes, sizeof page->bytes)) return false;
    page->left = sizeof page->bytes;
  }
  // Handed out from the end, and zeroed: the page keeps only what no one has had.
  std::uint8_t* from = page->bytes + (page->left - n);
  std::memcpy(out, from, n);
  explicit_bzero(from, n);
  page->left -= n;
  return true;
}

}  // namespace sandbox::wasi
