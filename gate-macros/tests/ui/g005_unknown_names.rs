mod spec {
    gate_macros::spec!("tests/ui/g005_unknown_names.toml");
}

fn main() {
    let _ = &spec::COMPILED;
}
