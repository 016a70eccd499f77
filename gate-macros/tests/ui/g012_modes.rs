mod spec {
    gate_macros::spec!("tests/ui/g012_modes.toml");
}

fn main() {
    let _ = &spec::COMPILED;
}
