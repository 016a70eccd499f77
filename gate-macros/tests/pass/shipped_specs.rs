mod shipped {
    gate_macros::specs!("../specs");
}

fn main() {
    assert!(!shipped::ALL.is_empty());
    let mut names: Vec<&str> = shipped::ALL.iter().map(|s| s.name).collect();
    names.sort();
    names.dedup();
    assert_eq!(names.len(), shipped::ALL.len(), "spec names are unique");
    for spec in shipped::ALL {
        assert_eq!(spec.ir().name, spec.name);
        assert_eq!(spec.ir().hash, spec.hash);
        let snapshot = spec.machine.initial();
        assert_eq!(usize::from(snapshot.state), usize::from(spec.ir().initial));
    }
}
