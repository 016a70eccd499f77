mod spec {
    gate_macros::spec!("tests/ui/g022_conflict.toml");
}

fn main() {
    let _ = &spec::COMPILED;
}
