mod spec {
    gate_macros::spec!("tests/ui/g006_duplicates.toml");
}

fn main() {
    let _ = &spec::COMPILED;
}
