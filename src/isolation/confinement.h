// Confinement of the current process: the layers a worker process puts between untrusted
// WebAssembly guest code and the host before it runs any of it, and the ones a zygote (the
// process that forks workers) puts around itself.
//
// confine_current_process() applies, in this order, and each layer only ever removes rights:
//
//   1. Descriptors: every open descriptor is closed except ConfinementOptions::keep_fds and, when
//      asked, memfds sealed against writing (read-only engine images). It runs first, while the
//      process may still inspect its descriptors, so no later layer sees a descriptor it should
//      not have.
//   2. Resource limits: no core dumps (RLIMIT_CORE 0).
//   3. A new user and network namespace, best effort: the process then has no network interface
//      but a loopback that is down, so it reaches no socket of the host by address.
//   4. PR_SET_NO_NEW_PRIVS: nothing it executes gains privileges (and 5 and 6 need it).
//   5. Landlock, best effort: a ruleset that handles every file-system access right this module
//      knows and the kernel supports, with no rule allowing any, so no path can be opened,
//      created, removed or executed even through a system call the filter below allows.
//   6. A seccomp filter (libseccomp) that allows only the system calls of the chosen
//      SyscallPolicy and kills the whole process (SIGSYS) on any other.
//
// What it leaves alone, on purpose: the dumpable flag stays as it is (1), because the server may
// read a worker's memory with process_vm_readv; a user namespace keeps that possible for the
// server, whose user owns it. RLIMIT_FSIZE is not lowered: the worker's own memfds count against
// it (ftruncate or write past it raises SIGXFSZ), and once no path can be opened the only regular
// files the process can write are those memfds. RLIMIT_NPROC is not used either: threads count
// against it and the worker creates threads; the filter is what refuses new processes.
//
// Known residue: newfstatat must stay allowed (glibc's fstat is newfstatat(fd, "", buf,
// AT_EMPTY_PATH)) and a filter cannot read its path argument, so a worker can still learn
// whether a path exists and its metadata (never its content: Landlock has no right for stat).
//
// Thread-safety: confine_current_process() must be called while the process is single-threaded
// (unsharing a user namespace requires it); the worker calls it right after fork(). Its effects
// are irreversible for the process and inherited by its children.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace sandbox::isolation {

// Which system calls the seccomp filter allows (the lists are in confinement.cc).
enum class SyscallPolicy {
  // A worker running guest code: memory, threads, time, signals to itself, I/O on the descriptors
  // it already has, memfds and userfaultfd. No call that opens a path, creates a socket or a
  // process, executes a program, traces, or changes namespaces or mounts.
  kWorker,
  // The zygote that forks workers: kWorker plus fork (clone without CLONE_THREAD), AF_UNIX
  // socketpair, waiting for and signalling children, close_range, rlimits, unshare, and what a
  // child needs to confine itself further (no_new_privs, seccomp, Landlock). Filters stack, so a
  // worker forked from it that confines itself with kWorker is bound by both.
  kZygote,
};

struct ConfinementOptions {
  // The system calls the process keeps (layer 6).
  SyscallPolicy policy = SyscallPolicy::kWorker;
  // Descriptors to keep open (the worker's channel to the server); every other descriptor is
  // closed, except the sealed memfds of keep_sealed_memfds. 0, 1 and 2 are no exception: list
  // them to keep them. A closed 0-2 is reused by the next descriptor the process creates (a
  // memfd, a userfaultfd), so code that writes to stdout would then write into it. Each must be
  // open (std::system_error with EBADF otherwise).
  std::vector<int> keep_fds;
  // Also keep every memfd sealed against writing (F_GET_SEALS reports F_SEAL_WRITE): read-only
  // engine images the worker maps. Descriptors at or above the soft RLIMIT_NOFILE (there are
  // some only when the limit was lowered after they were opened) are closed without a look.
  bool keep_sealed_memfds = true;
  // Try unshare(CLONE_NEWUSER | CLONE_NEWNET) (and CLONE_NEWNET alone when user namespaces are
  // unavailable but the process may create a network namespace). Failure is not an error; the
  // report says whether it happened.
  bool network_namespace = true;
  // Try Landlock (layer 5). A kernel without it (ENOSYS, EOPNOTSUPP, or the version query refused
  // by an outer filter) is not an error; a failure after the kernel reported a version is.
  bool landlock = true;
  // Load the seccomp filter (layer 6). false only for tests that check the other layers alone.
  bool seccomp = true;
};

// What confine_current_process() put in place.
struct ConfinementReport {
  // PR_SET_NO_NEW_PRIVS is set (always, after a successful call).
  bool no_new_privs = false;
  // The seccomp filter is loaded (unless ConfinementOptions::seccomp was false).
  bool seccomp = false;
  // A Landlock ruleset restricts the process.
  bool landlock = false;
  // The process is in a network namespace of its own (in a new user namespace when possible).
  bool network_namespace = false;
  // The kernel's Landlock ABI version (0: no Landlock, or not asked for).
  int landlock_abi = 0;
  // How many open descriptors were closed (those below the soft RLIMIT_NOFILE; see
  // ConfinementOptions::keep_sealed_memfds).
  std::size_t closed_fds = 0;
};

// Confines the calling process as described at the top of this file. Requires a single-threaded
// process that is not yet under a filter stricter than kZygote's. Throws std::system_error when a
// mandatory step fails (a kept descriptor that is not open, closing descriptors, RLIMIT_CORE,
// no_new_privs, building or loading the seccomp filter) or Landlock fails on a kernel that has
// it; the process is then partly confined and should exit.
ConfinementReport confine_current_process(const ConfinementOptions& options);

// A one-line description for logs, e.g. "seccomp, no_new_privs, landlock (ABI 4), network
// namespace; 3 descriptors closed", naming the layers that are missing after "without".
std::string describe(const ConfinementReport& report);

}  // namespace sandbox::isolation
