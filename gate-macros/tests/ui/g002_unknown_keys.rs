mod spec {
    gate_macros::spec!("tests/ui/g002_unknown_keys.toml");
}

fn main() {
    let _ = &spec::COMPILED;
}
