mod spec {
    gate_macros::spec!("tests/ui/g010_hysteresis.toml");
}

fn main() {
    let _ = &spec::COMPILED;
}
