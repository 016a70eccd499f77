mod spec {
    gate_macros::spec!("tests/ui/g027_regions.toml");
}

fn main() {
    let _ = &spec::COMPILED;
}
