/* Skipping the active data segments at instantiation (docs/guest-abi.md#copy-on-write-mapping).
 *
 * wasm2c's instantiate copies every active data segment into the new memory: for Python 22,571
 * segments, 3 MiB, and the first touch of the pages they land on. An instance whose whole memory
 * is replaced before any guest code runs (by the engine image or a restored snapshot) does not
 * need that copy. The embedder sets the flag on the thread around instantiate; the code
 * sandbox-wasmc generates asks for it before its segment loads (tools/sandbox-wasmc,
 * c_splitter.cc) and leaves the memory zero when it is set.
 *
 * What changes when skipped: a segment out of bounds no longer traps at instantiation. The
 * memory that replaces the skipped bytes comes from an instance of the same module, whose
 * instantiation did copy, and so did check, the same segments. */
#ifndef SANDBOX_WASM_DATA_SEGMENTS_H_
#define SANDBOX_WASM_DATA_SEGMENTS_H_

#ifdef __cplusplus
extern "C" {
#endif

/* Sets (nonzero) or clears the flag for instantiations on this thread. */
void sandbox_wasm_set_skip_data_segments(int skip);

/* Nonzero when the instantiation running on this thread leaves its active data segments out.
 * The generated code declares it itself: its headers stay unchanged. */
int sandbox_wasm_skip_data_segments(void);

#ifdef __cplusplus
}
#endif

#endif /* SANDBOX_WASM_DATA_SEGMENTS_H_ */
