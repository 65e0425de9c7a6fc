use criterion::Criterion;

pub fn bench(_c: &mut Criterion) {}
