// Module: a wasm2c module's descriptor plus an index of its exported functions.
#include <string>
#include <unordered_map>

#include <sandbox/wasm/error.h>
#include <sandbox/wasm/module.h>

#include "wasm/module_descriptor.h"
#include "wasm/runtime.h"

namespace sandbox::wasm {

struct Module::Index {
  std::unordered_map<std::string_view, const sandbox_wasm_export*> functions;
};

namespace {

std::string describe(std::span<const ValType> types) {
  static constexpr const char* kNames[] = {"i32", "i64", "f32", "f64", "funcref", "externref"};
  std::string out = "(";
  for (std::size_t i = 0; i < types.size(); ++i) {
    if (i > 0) out += ", ";
    auto t = static_cast<std::size_t>(types[i]);
    out += t < std::size(kNames) ? kNames[t] : "?";
  }
  return out + ")";
}

std::vector<ValType> to_types(const std::uint8_t* types, std::uint32_t count) {
  std::vector<ValType> out;
  out.reserve(count);
  for (std::uint32_t i = 0; i < count; ++i) out.push_back(static_cast<ValType>(types[i]));
  return out;
}

bool same(const std::uint8_t* types, std::uint32_t count, std::span<const ValType> expected) {
  if (count != expected.size()) return false;
  for (std::uint32_t i = 0; i < count; ++i) {
    if (types[i] != static_cast<std::uint8_t>(expected[i])) return false;
  }
  return true;
}

FunctionInfo function_info(const sandbox_wasm_export& e) {
  return FunctionInfo{e.name, to_types(e.params, e.param_count),
                      to_types(e.results, e.result_count)};
}

}  // namespace

Module::Module(const sandbox_wasm_module_descriptor& descriptor) : descriptor_(&descriptor) {
  if (descriptor.abi != SANDBOX_WASM_DESCRIPTOR_ABI) {
    throw WasmError("module '" + std::string(descriptor.name ? descriptor.name : "?") +
                    "' was compiled for descriptor ABI " + std::to_string(descriptor.abi) +
                    ", this runtime implements " + std::to_string(SANDBOX_WASM_DESCRIPTOR_ABI));
  }
  sandbox_wasm_runtime_init();
  descriptor.init_module();
  auto index = std::make_shared<Index>();
  for (std::uint32_t i = 0; i < descriptor.export_count; ++i) {
    const sandbox_wasm_export& e = descriptor.exports[i];
    if (e.kind == SANDBOX_WASM_EXPORT_FUNCTION) index->functions.emplace(e.name, &e);
  }
  index_ = std::move(index);
}

std::string_view Module::name() const { return descriptor_->name; }
std::string_view Module::wasm_sha256() const { return descriptor_->wasm_sha256; }
bool Module::metered() const { return descriptor_->fuel_global >= 0; }
bool Module::has_memory() const { return descriptor_->memory_offset >= 0; }
std::uint32_t Module::initial_pages() const { return descriptor_->memory_initial_pages; }
std::uint32_t Module::max_pages() const { return descriptor_->memory_max_pages; }

std::vector<std::pair<std::string_view, bool>> Module::import_modules() const {
  std::vector<std::pair<std::string_view, bool>> out;
  out.reserve(descriptor_->import_module_count);
  for (std::uint32_t i = 0; i < descriptor_->import_module_count; ++i) {
    out.emplace_back(descriptor_->import_modules[i], descriptor_->import_module_provided[i] != 0);
  }
  return out;
}

std::vector<FunctionInfo> Module::functions() const {
  std::vector<FunctionInfo> out;
  for (std::uint32_t i = 0; i < descriptor_->export_count; ++i) {
    const sandbox_wasm_export& e = descriptor_->exports[i];
    if (e.kind == SANDBOX_WASM_EXPORT_FUNCTION) out.push_back(function_info(e));
  }
  return out;
}

std::optional<FunctionInfo> Module::find_function(std::string_view name) const {
  auto it = index_->functions.find(name);
  if (it == index_->functions.end()) return std::nullopt;
  return function_info(*it->second);
}

std::pair<std::string_view, const void*> Module::checked_export(
    std::string_view name, std::span<const ValType> params,
    std::span<const ValType> results) const {
  auto it = index_->functions.find(name);
  if (it == index_->functions.end()) {
    throw WasmError("module '" + std::string(this->name()) + "' exports no function '" +
                    std::string(name) + "'");
  }
  const sandbox_wasm_export& e = *it->second;
  if (!same(e.params, e.param_count, params) || !same(e.results, e.result_count, results)) {
    throw WasmError("export '" + std::string(name) + "' of module '" + std::string(this->name()) +
                    "' has signature " + describe(to_types(e.params, e.param_count)) + " -> " +
                    describe(to_types(e.results, e.result_count)) + ", called as " +
                    describe(params) + " -> " + describe(results));
  }
  return {e.name, reinterpret_cast<const void*>(e.function)};
}

}  // namespace sandbox::wasm
