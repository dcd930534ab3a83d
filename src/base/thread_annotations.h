// Clang's thread-safety attributes (https://clang.llvm.org/docs/ThreadSafetyAnalysis.html) as
// macros: with clang they let -Wthread-safety check at compile time that a member annotated
// SANDBOX_GUARDED_BY(mu) is only touched with `mu` held, and that a function annotated
// SANDBOX_REQUIRES(mu) is only called with it held. With any other compiler (gcc builds the
// default preset) they expand to nothing.
//
// Where the check runs: the clang-built presets (`fuzz`) compile our targets with
// -Wthread-safety as an error (cmake/SandboxWarnings.cmake), and scripts/run_clang_tidy.sh
// reports it as clang-diagnostic-thread-safety on every file it checks.
//
// libstdc++'s std::mutex carries no such attributes: annotate with sandbox::Mutex and
// sandbox::MutexLock (base/mutex.h), which do.
//
// Thread-safety: macros only.
#pragma once

#if defined(__clang__)
#define SANDBOX_THREAD_ANNOTATION(x) __attribute__((x))
#else
#define SANDBOX_THREAD_ANNOTATION(x)
#endif

// A type that is a lock (a "capability" named `name` in the diagnostics).
#define SANDBOX_CAPABILITY(name) SANDBOX_THREAD_ANNOTATION(capability(name))
// An RAII type that holds a capability from its constructor to its destructor.
#define SANDBOX_SCOPED_CAPABILITY SANDBOX_THREAD_ANNOTATION(scoped_lockable)
// A data member read or written only with `mu` held.
#define SANDBOX_GUARDED_BY(mu) SANDBOX_THREAD_ANNOTATION(guarded_by(mu))
// A pointer member whose pointee is read or written only with `mu` held.
#define SANDBOX_PT_GUARDED_BY(mu) SANDBOX_THREAD_ANNOTATION(pt_guarded_by(mu))
// A function its caller must call with the capabilities held (and which keeps them held).
#define SANDBOX_REQUIRES(...) SANDBOX_THREAD_ANNOTATION(requires_capability(__VA_ARGS__))
// A function its caller must call without the capabilities held (it takes them itself).
#define SANDBOX_EXCLUDES(...) SANDBOX_THREAD_ANNOTATION(locks_excluded(__VA_ARGS__))
// A function that takes the capabilities (none listed: `this`) and returns holding them.
#define SANDBOX_ACQUIRE(...) SANDBOX_THREAD_ANNOTATION(acquire_capability(__VA_ARGS__))
// A function that releases the capabilities (none listed: `this`).
#define SANDBOX_RELEASE(...) SANDBOX_THREAD_ANNOTATION(release_capability(__VA_ARGS__))
// A function that takes the capabilities when it returns `result`.
#define SANDBOX_TRY_ACQUIRE(...) SANDBOX_THREAD_ANNOTATION(try_acquire_capability(__VA_ARGS__))
// A function that returns a reference to the capability `x`.
#define SANDBOX_RETURN_CAPABILITY(x) SANDBOX_THREAD_ANNOTATION(lock_returned(x))
// A function the analysis does not look into (say why where it is used).
#define SANDBOX_NO_THREAD_SAFETY_ANALYSIS SANDBOX_THREAD_ANNOTATION(no_thread_safety_analysis)
