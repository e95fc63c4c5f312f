#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(violation) = toolc::fuzzing::apply_fixes(data) {
        panic!("{violation}");
    }
});
