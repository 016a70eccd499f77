mod spec {
    gate_macros::spec!("tests/ui/g018_too_many_kinds.toml");
}

fn main() {
    let _ = &spec::COMPILED;
}
