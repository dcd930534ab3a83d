# Reads and writes the shadow-stack pointer (the __stack_pointer global of wasm32 clang code).
# The asyncify "catch" frame restores it after an unwind, because the frames that were unwound
# never ran their epilogues.
  .globaltype __stack_pointer, i32

  .globl sbx_get_stack_pointer
  .type sbx_get_stack_pointer,@function
sbx_get_stack_pointer:
  .functype sbx_get_stack_pointer () -> (i32)
  global.get __stack_pointer
  end_function

  .globl sbx_set_stack_pointer
  .type sbx_set_stack_pointer,@function
sbx_set_stack_pointer:
  .functype sbx_set_stack_pointer (i32) -> ()
  local.get 0
  global.set __stack_pointer
  end_function
