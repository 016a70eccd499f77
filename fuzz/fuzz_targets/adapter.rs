//! Fuzz target: `gate_fuzz::adapter` (see fuzz/src/lib.rs) must not panic on any input.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    gate_fuzz::adapter(data);
});
