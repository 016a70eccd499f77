mod spec {
    gate_macros::spec!("tests/ui/g025_relax.toml");
}

fn main() {
    let _ = &spec::COMPILED;
}
