/* The descriptor sandbox-wasmc emits for every compiled module: the ABI between the generated
 * code (NAME_descriptor.c) and the runtime (sandbox::wasm::Module). C-compatible.
 *
 * All pointers refer to static data of the generated object; nothing is owned or freed.
 * Offsets are byte offsets into the wasm2c instance struct (`Z_<name>_instance_t`), which the
 * runtime allocates with `instance_size` / `instance_align`, zero-filled, before instantiate().
 */
#ifndef SANDBOX_WASM_MODULE_DESCRIPTOR_H_
#define SANDBOX_WASM_MODULE_DESCRIPTOR_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped whenever this struct or the generated code's runtime ABI changes. */
#define SANDBOX_WASM_DESCRIPTOR_ABI 1

/* Value types, numbered like wasm_rt_type_t. */
enum {
  SANDBOX_WASM_TYPE_I32 = 0,
  SANDBOX_WASM_TYPE_I64 = 1,
  SANDBOX_WASM_TYPE_F32 = 2,
  SANDBOX_WASM_TYPE_F64 = 3,
  SANDBOX_WASM_TYPE_FUNCREF = 4,
  SANDBOX_WASM_TYPE_EXTERNREF = 5,
};

enum {
  SANDBOX_WASM_EXPORT_FUNCTION = 0,
  SANDBOX_WASM_EXPORT_TABLE = 1,
  SANDBOX_WASM_EXPORT_MEMORY = 2,
  SANDBOX_WASM_EXPORT_GLOBAL = 3,
};

typedef void (*sandbox_wasm_fn)(void);

typedef struct sandbox_wasm_export {
  const char* name; /* NUL-terminated (sandbox-wasmc rejects names containing NUL) */
  uint8_t kind;     /* SANDBOX_WASM_EXPORT_* */
  uint32_t index;   /* global: index into `globals`; otherwise unused */
  uint32_t param_count;
  uint32_t result_count;
  const uint8_t* params; /* SANDBOX_WASM_TYPE_* */
  const uint8_t* results;
  sandbox_wasm_fn function; /* functions: R Z_<mod>Z_<name>(instance, params...) */
} sandbox_wasm_export;

typedef struct sandbox_wasm_import {
  const char* module;
  const char* name;
  uint32_t module_index; /* index into import_modules */
  uint8_t provided;      /* 1: the host defines Z_<module>Z_<name>; 0: a trapping stub */
} sandbox_wasm_import;

typedef struct sandbox_wasm_global {
  uint8_t type; /* SANDBOX_WASM_TYPE_* */
  uint8_t is_mutable;
  uint8_t is_fuel; /* the `fuel` global added by the fuel pass */
  uint32_t offset; /* of the field in the instance struct */
  uint32_t size;   /* bytes of the field */
} sandbox_wasm_global;

typedef struct sandbox_wasm_module_descriptor {
  uint32_t abi;            /* SANDBOX_WASM_DESCRIPTOR_ABI */
  const char* name;        /* the module name given to sandbox-wasmc */
  const char* wasm_sha256; /* hex sha256 of the compiled (post-transform) .wasm */
  size_t instance_size;
  size_t instance_align;
  /* Registers function types; idempotent and thread-safe (wraps Z_<name>_init_module). */
  void (*init_module)(void);
  /* Z_<name>_instantiate(instance, contexts[0], contexts[1], ...). Runs generated code: call it
   * inside a guest call frame (it can trap, e.g. on a data segment out of range). */
  void (*instantiate)(void* instance, void* const* import_contexts);
  void (*free_instance)(void* instance);
  uint32_t import_module_count;
  const char* const* import_modules;     /* in the order of instantiate()'s contexts */
  const uint8_t* import_module_provided; /* 1 if any import of that module is provided */
  uint32_t import_count;
  const sandbox_wasm_import* imports;
  uint32_t export_count;
  const sandbox_wasm_export* exports;
  uint32_t global_count;
  const sandbox_wasm_global* globals; /* the module's globals, in index order */
  int32_t memory_offset;              /* offset of the wasm_rt_memory_t, or -1 */
  uint32_t memory_initial_pages;
  uint32_t memory_max_pages;     /* after any build-time cap; at most 65535 */
  int32_t fuel_global;           /* index into globals, or -1 (not metered) */
  int32_t sandbox_import_module; /* index of "sandbox" in import_modules, or -1 */
} sandbox_wasm_module_descriptor;

#ifdef __cplusplus
}
#endif

#endif /* SANDBOX_WASM_MODULE_DESCRIPTOR_H_ */
