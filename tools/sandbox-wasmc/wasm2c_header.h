// What sandbox-wasmc needs from the header wasm2c 1.0.32 generates: the instance struct's
// fields (import contexts, globals, memory, tables), the init/instantiate/free functions, and
// the C declaration of every import and export (found by the comment wasm2c writes above it;
// wasm2c does not keep the module's import order).
//
// Throws Wasm2cOutputError when the header does not have the expected shape (e.g. a different
// wabt version).
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace sandbox::wasmc {

class Wasm2cOutputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// `RET SYMBOL(PARAM, ...);`
struct CDeclaration {
  std::string return_type;
  std::string symbol;
  std::vector<std::string> param_types;  // parameter names, if any, stripped
};
CDeclaration parse_c_declaration(std::string_view line);

struct InstanceField {
  std::string type;
  std::string name;
  bool bitfield = false;
};

// A declaration with the comment line wasm2c wrote above it (`/* import: 'mod' 'name' */`).
struct CommentedDeclaration {
  std::string comment;
  CDeclaration declaration;
};

struct Wasm2cHeader {
  std::string instance_type;  // Z_<mod>_instance_t
  std::string init_module;    // Z_<mod>_init_module
  std::string instantiate;    // Z_<mod>_instantiate
  std::string free_instance;  // Z_<mod>_free
  // Parameter types of instantiate after the instance pointer: one context per import module.
  std::vector<std::string> context_types;
  std::vector<InstanceField> fields;
  std::vector<CommentedDeclaration> imports;  // function imports (wasm2c's order)
  std::vector<CommentedDeclaration> exports;  // all exports (wasm2c's order)

  // The declaration of import module.name / export name; throws Wasm2cOutputError if absent.
  const CDeclaration& find_import(std::string_view module, std::string_view name) const;
  const CDeclaration& find_export(std::string_view name) const;

  // The fields holding the module's defined globals (in global order) and its memory.
  std::vector<const InstanceField*> global_fields() const;
  const InstanceField* memory_field() const;
};

Wasm2cHeader parse_wasm2c_header(std::string_view text);

// True for the C types wasm2c uses for global fields (u32, u64, f32, f64, funcref, externref).
bool is_global_field_type(std::string_view type);

}  // namespace sandbox::wasmc
