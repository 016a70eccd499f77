mod spec {
    gate_macros::spec!("tests/ui/g003_wrong_types.toml");
}

fn main() {
    let _ = &spec::COMPILED;
}
