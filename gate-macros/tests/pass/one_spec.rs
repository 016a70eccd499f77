mod example {
    gate_macros::spec!("../specs/example.toml");
}

fn main() {
    use gate_spec::exec::Machine as _;
    assert_eq!(example::NAME, "example");
    assert_eq!(example::State::INITIAL, example::State::Idle);
    assert_eq!(example::Trigger::SignalShift.text(), "signal:shift");
    let snapshot = example::Machine.initial();
    assert_eq!(snapshot.state, example::State::Idle.id());
}
