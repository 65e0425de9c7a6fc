//! Varint unpack (oracle, scalar, simd with the kernel chosen for this
//! process, every SIMD kernel this CPU can run, libtw2 packer) on the same inputs; throughput
//! counts packed input bytes.
use criterion::{black_box, BenchmarkId, Criterion, Throughput};
use teebatch::backend::Backend;
use teebatch::codec::kernels::Kernels;
use teebatch::codec::varint;

use crate::common::corpora;

pub fn bench(c: &mut Criterion) {
    for corpus in corpora() {
        let inputs = &corpus.decompressed;
        let mut ints = vec![0i32; corpus.max_decompressed()];
        let mut warnings = Vec::new();
        for input in inputs {
            for backend in Backend::ALL {
                Kernels::new(backend)
                    .unpack(input, &mut ints, &mut warnings)
                    .expect("valid ints");
            }
        }
        let mut group = c.benchmark_group("varint/unpack");
        group.throughput(Throughput::Bytes(corpus.decompressed_bytes()));
        for backend in Backend::ALL {
            let k = Kernels::new(backend);
            group.bench_function(BenchmarkId::new(backend.name(), corpus.name), |b| {
                b.iter(|| {
                    for input in inputs {
                        warnings.clear();
                        let r = k.unpack(input, &mut ints, &mut warnings);
                        black_box(r.ok());
                    }
                })
            });
        }
        // Every SIMD kernel this CPU can run, whatever the level cap.
        for kernel in varint::simd::Kernel::ALL {
            if !kernel.available() {
                continue;
            }
            let id = BenchmarkId::new(format!("simd-{}", kernel.name()), corpus.name);
            group.bench_function(id, |b| {
                b.iter(|| {
                    for input in inputs {
                        warnings.clear();
                        let r = varint::simd::unpack_on(kernel, input, &mut ints, &mut warnings);
                        black_box(r.ok());
                    }
                })
            });
        }
        let mut tw_warnings: Vec<libtw2_packer::Warning> = Vec::new();
        group.bench_function(BenchmarkId::new("libtw2", corpus.name), |b| {
            b.iter(|| {
                for input in inputs {
                    let mut unpacker = libtw2_packer::Unpacker::new(input);
                    let mut n = 0;
                    tw_warnings.clear();
                    while !unpacker.is_empty() {
                        match unpacker.read_int(&mut tw_warnings) {
                            Ok(v) => {
                                ints[n] = v;
                                n += 1;
                            }
                            Err(_) => break,
                        }
                    }
                    black_box(n);
                }
            })
        });
        group.finish();
    }
}
