mod spec {
    gate_macros::spec!("tests/ui/g011_no_rearm_floor.toml");
}

fn main() {
    let _ = &spec::COMPILED;
}
