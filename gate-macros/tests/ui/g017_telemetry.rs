mod spec {
    gate_macros::spec!("tests/ui/g017_telemetry.toml");
}

fn main() {
    let _ = &spec::COMPILED;
}
