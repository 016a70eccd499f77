mod spec {
    gate_macros::spec!("tests/ui/g004_missing_keys.toml");
}

fn main() {
    let _ = &spec::COMPILED;
}
