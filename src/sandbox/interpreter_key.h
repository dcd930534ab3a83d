// The interpreter key a sandbox uses with a binding (docs/sandbox-api.md#interpreter-keys).
//
// Upstream keys the runtime's Interpreter object with the sandbox Durable Object's own id: 64 hex
// characters, unique per deployment, so two callers using the same sandbox id never collide on
// a runtime. Here the key is derived from the sandbox's `lifetime` (a random UUID minted when
// its meta is created and persisted with it) and the binding name:
//
//     sbx.<lifetime UUID>.<BINDING>        e.g. sbx.0f8e...-...-4c1d.LUA
//
//  - stable across sandboxd restarts (the lifetime is stored in the sandbox meta);
//  - unique per sandbox incarnation and per deployment (a wiped and recreated sandbox, or the
//    same id on another sandboxd sharing a remote runtime, gets another UUID);
//  - distinct per binding, which matters in process: every built-in engine keeps its contexts
//    in sandboxd's one database, whose interpreter tables are keyed by the key alone.
// It matches the key pattern ^[A-Za-z0-9._-]{1,128}$ for binding names of at most 64
// characters (sandboxd refuses longer ones).
#pragma once

#include <string>
#include <string_view>

namespace sandbox {

inline constexpr std::size_t kMaxBindingNameLength = 64;

std::string interpreter_key(std::string_view lifetime, std::string_view binding);

}  // namespace sandbox
