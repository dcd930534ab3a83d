# expected-difference: the sandbox's Ruby is a 32-bit (wasm32) build without flonums, so two equal Floats are distinct objects (5.0.equal?(5.0) is false; true on 64-bit Debian)
p 5.0.equal?(5.0), 1.5.object_id == 1.5.object_id
