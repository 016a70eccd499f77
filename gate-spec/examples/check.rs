fn main() {
    let path = std::env::args().nth(1).unwrap();
    let src = std::fs::read_to_string(&path).unwrap();
    let (spec, d) = gate_spec::compile(&src);
    print!("{}", gate_spec::diag::render_all(&path, &src, &d.items));
    println!("ok={} transitions={}", spec.is_some(), spec.map(|s| s.transitions.len()).unwrap_or(0));
}
