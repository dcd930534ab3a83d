// The Python engine: CPython 3.11.2 (Debian python3.11 with Debian's security patches)
// compiled to a metered wasm32-wasi reactor (driver.c, sandbox_repl.py) and served by the
// embedded-interpreter host (<sandbox/embedded.h>), with stateless runs and sessions (code
// contexts). The stdlib (python311.zip: Lib/ with precompiled .pyc) is mounted read-only at
// /stdlib from an archive embedded in the program.
//
// Language semantics (sandbox_repl.py has the details, after upstream's Python engine): the
// last top-level expression is the result (None -> none, dict/list -> json when json.dumps
// accepts them, else repr text); errors carry name, message and a traceback whose first line
// is "<Name>: <message>"; __main__'s globals persist in a session; os.environ is the request's
// variables; os.chdir/os.getcwd and open() work on /workspace, which is first on sys.path.
// Not available: ssl, ctypes, threads, subprocesses, sockets.
//
// Limits: kPythonFuel per run or session execute (a run also pays for the interpreter's
// start-up), kPythonMemoryBytes of linear memory, 30 s per guest call. The memory cap is 128 MiB,
// not the engines' common 64 MiB: CPython uses about 10 MiB after start-up and lzma's default
// preset (6) needs 93 MiB for its encoder (docs/languages.md#python-memory). The module is
// compiled with the same maximum (SANDBOX_PYTHON_MAX_MEMORY, engines/python/CMakeLists.txt).
// Thread-safety: the Engine's run() may be called from any thread; module and stdlib are shared.
#pragma once

#include <cstdint>

#include <sandbox/engine.h>
#include <sandbox/engine_limits.h>

namespace sandbox::engines {

inline constexpr std::uint64_t kPythonFuel = 100'000'000;
inline constexpr std::uint64_t kPythonMemoryBytes = 128ull << 20;

Engine make_python_engine();

}  // namespace sandbox::engines
