mod spec {
    gate_macros::spec!("tests/ui/g009_nondeterminism.toml");
}

fn main() {
    let _ = &spec::COMPILED;
}
