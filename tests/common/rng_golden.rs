//! Committed bit patterns of the first values of seeded `randn`/`rand`, checked natively
//! (tests/tensor/rng_stream.rs) and in the browser and a worker, so all three must agree bit for bit.
//!
//! How they were made: `cargo test --test tensor -- --ignored --nocapture print_golden_constants`
//! ran once on x86-64 Linux. That uses the code under test, and on purpose: these constants test
//! stability (the stream of a seed never changes) and cross-platform identity (wasm32 with simd128
//! produces the same bits), not correctness; correctness of the same stream is checked against an
//! independent xoshiro256** and Box–Muller in tests/tensor/rng_stream.rs, and by the moments below.

use tilelab::tensor::{manual_seed, DType, Tensor};

/// Values per case.
pub const COUNT: usize = 16;

/// (constant name, dtype, seed, normal?) of each committed case.
pub const CASES: [(&str, DType, u64, bool); 6] = [
    ("RANDN_SEED_0_F32", DType::F32, 0, true),
    ("RANDN_SEED_42_F32", DType::F32, 42, true),
    ("RAND_SEED_7_F32", DType::F32, 7, false),
    ("RANDN_SEED_2024_BF16", DType::Bf16, 2024, true),
    ("RANDN_SEED_42_F64", DType::F64, 42, true),
    ("RAND_SEED_7_F64", DType::F64, 7, false),
];

/// `randn` in f32 with seed 0: the first `COUNT` values, as bit patterns of the values widened to f32.
pub const RANDN_SEED_0_F32: [u32; COUNT] = [
    0xBC9B5C78, 0xBECEB488, 0x3FD0039B, 0xBF82B848, 0x3FDBC284, 0x3EE615BE, 0xBE88E791, 0xBEAC294B, 0x3F16339C,
    0x3F972962, 0xBF5D5D8C, 0xBF1C8E11, 0xBF746019, 0x3F9DB2E7, 0x40128F8F, 0xBE1351B1,
];
/// `randn` in f32 with seed 42: the first `COUNT` values, as bit patterns of the values widened to f32.
pub const RANDN_SEED_42_F32: [u32; COUNT] = [
    0xBE9B454C, 0x3FAC0206, 0x3EC4551B, 0x3F6FDCC5, 0xBFBBA497, 0xBEC40F67, 0xBF478DE8, 0x3F91196E, 0x3F52E6A1,
    0xBED23FBB, 0x3E42FF9F, 0xBF5BAA3D, 0xBF5DBD63, 0x3E7B7391, 0x3E2A2043, 0xBF3DE138,
];
/// `rand` in f32 with seed 7: the first `COUNT` values, as bit patterns of the values widened to f32.
pub const RAND_SEED_7_F32: [u32; COUNT] = [
    0x3F3358FB, 0x3E8EB87B, 0x3F56F1D3, 0x3F7B2938, 0x3F7DA905, 0x3F5F6E1D, 0x3D78D72C, 0x3DD5E26E, 0x3ECEB29F,
    0x3E1B75AF, 0x3F0A9711, 0x3F3B5B0F, 0x3F70600D, 0x3F617F6F, 0x3EE7207A, 0x3F0F95C6,
];
/// `randn` in bf16 with seed 2024: the first `COUNT` values, as bit patterns of the values widened to f32.
pub const RANDN_SEED_2024_BF16: [u32; COUNT] = [
    0x3D8B0000, 0x3E550000, 0x3D630000, 0xBD350000, 0x3F9B0000, 0x3FBA0000, 0xBFB10000, 0x3F230000, 0xBE2E0000,
    0xBFBE0000, 0xBEF70000, 0xBF130000, 0x3F920000, 0x3D930000, 0xBF840000, 0xC0250000,
];
/// `randn` in f64 with seed 42: the first `COUNT` values, as f64 bit patterns.
pub const RANDN_SEED_42_F64: [u64; COUNT] = [
    0xBFD368A97C38507C,
    0x3FF58040C37F1762,
    0x3FD88AA35330A92C,
    0x3FEDFB989FA22573,
    0xBFF77492EA9C737C,
    0xBFD881ECD3B33A63,
    0xBFE8F1BCFAA976D2,
    0x3FF2232DB4C7AA31,
    0x3FEA5CD42A70CDDF,
    0xBFDA47F76912B577,
    0x3FC85FF3EC47E699,
    0xBFEB7547AB060333,
    0xBFEBB7AC505085D6,
    0x3FCF6E722E4CCE29,
    0x3FC544086F02D3DA,
    0xBFE7BC26F653B8A0,
];
/// `rand` in f64 with seed 7: the first `COUNT` values, as f64 bit patterns.
pub const RAND_SEED_7_F64: [u64; COUNT] = [
    0x3FE66B1F5EE9DF2E,
    0x3FD1D70F6593D20A,
    0x3FEADE3A6932A58F,
    0x3FEF65270E63D00E,
    0x3FEFB5209D8FCA80,
    0x3FEBEDC39C76C431,
    0x3FAF1AE5852BD8B0,
    0x3FBABC4DCB546F60,
    0x3FD9D653E5B2B220,
    0x3FC36EB5D000C700,
    0x3FE152E2245AC3EC,
    0x3FE76B61E7123E53,
    0x3FEE0C019551AEB1,
    0x3FEC2FEDEFD1598F,
    0x3FDCE40F41503670,
    0x3FE1F2B8C2203096,
];

/// (name, dtype, seed, sample count) of the long normal streams whose bits are committed as a digest.
/// Long enough that a platform difference hitting one value in 16 000 shows: rounding f64 to f16
/// through f32 (what `half` does on CPUs with F16C, but not in wasm) changes 66 of 2^20 normals,
/// about 16 of the 2^18 here (the chance that none changes is e^-16).
pub const DIGEST_CASES: [(&str, DType, u64, usize); 3] = [
    ("RANDN_SEED_99_F16", DType::F16, 99, 1 << 18),
    ("RANDN_SEED_99_BF16", DType::Bf16, 99, 1 << 16),
    ("RANDN_SEED_99_F32", DType::F32, 99, 1 << 16),
];

/// FNV-1a 64-bit digests of the f32 bit patterns of each `DIGEST_CASES` stream, in order.
pub const DIGESTS: [u64; 3] = [0x900E49B8B97719F9, 0x8EE15EED1742E250, 0x11C8BDD095F88AB6];

/// FNV-1a (64-bit): for each byte, xor it in and multiply by the prime 0x100000001B3.
pub fn digest(values: &[f64]) -> u64 {
    values
        .iter()
        .flat_map(|&v| (v as f32).to_bits().to_le_bytes())
        .fold(0xCBF2_9CE4_8422_2325u64, |hash, byte| (hash ^ byte as u64).wrapping_mul(0x0000_0100_0000_01B3))
}

/// The digest of a long stream.
pub fn stream_digest(dtype: DType, seed: u64, count: usize) -> u64 {
    digest(&Tensor::randn(&[count], dtype, Some(seed)).unwrap().to_f64_vec())
}

/// The committed patterns of a case as u64 (f32 patterns widened), by constant name.
fn committed(name: &str) -> Vec<u64> {
    let widen = |bits: &[u32]| bits.iter().map(|&b| b as u64).collect();
    match name {
        "RANDN_SEED_0_F32" => widen(&RANDN_SEED_0_F32),
        "RANDN_SEED_42_F32" => widen(&RANDN_SEED_42_F32),
        "RAND_SEED_7_F32" => widen(&RAND_SEED_7_F32),
        "RANDN_SEED_2024_BF16" => widen(&RANDN_SEED_2024_BF16),
        "RANDN_SEED_42_F64" => RANDN_SEED_42_F64.to_vec(),
        "RAND_SEED_7_F64" => RAND_SEED_7_F64.to_vec(),
        other => panic!("no committed constant {other}"),
    }
}

/// The first `COUNT` values of every case equal the committed bit patterns exactly.
pub fn check_bit_patterns() {
    for (name, dtype, seed, normal) in CASES {
        let tensor =
            if normal { Tensor::randn(&[COUNT], dtype, Some(seed)) } else { Tensor::rand(&[COUNT], dtype, Some(seed)) };
        let values = tensor.unwrap().to_f64_vec();
        let bits: Vec<u64> = match dtype {
            DType::F64 => values.iter().map(|v| v.to_bits()).collect(),
            _ => values.iter().map(|&v| (v as f32).to_bits() as u64).collect(),
        };
        assert_eq!(bits, committed(name), "{name}: the seeded stream changed or differs on this platform");
    }
}

/// Long streams in f16, bf16 and f32 have the committed digests.
pub fn check_digests() {
    for ((name, dtype, seed, count), committed) in DIGEST_CASES.iter().zip(DIGESTS) {
        assert_eq!(stream_digest(*dtype, *seed, *count), committed, "{name}: the stream differs on this platform");
    }
}

/// Distribution moments of 20 000 samples, each within 5 standard errors: normal mean 0 (se 1/√n),
/// variance 1 (se √(2/n)), P(|z| < 1) = 0.6827 (se √(p(1−p)/n)); uniform values in [0, 1) with mean ½
/// (se √(1/12n)) and variance 1/12 (se √(1/180n)).
pub fn check_moments() {
    let n = 20_000usize;
    let count = n as f64;
    let normal = Tensor::randn(&[n], DType::F32, Some(3)).unwrap().to_f64_vec();
    let mean = normal.iter().sum::<f64>() / count;
    let var = normal.iter().map(|z| (z - mean).powi(2)).sum::<f64>() / count;
    let inside = normal.iter().filter(|z| z.abs() < 1.0).count() as f64 / count;
    assert!(mean.abs() < 5.0 / count.sqrt(), "normal mean {mean}");
    assert!((var - 1.0).abs() < 5.0 * (2.0 / count).sqrt(), "normal variance {var}");
    assert!((inside - 0.682_689_492).abs() < 5.0 * (0.6827 * 0.3173 / count).sqrt(), "P(|z| < 1) = {inside}");
    let uniform = Tensor::rand(&[n], DType::F32, Some(4)).unwrap().to_f64_vec();
    assert!(uniform.iter().all(|u| (0.0..1.0).contains(u)));
    let mean = uniform.iter().sum::<f64>() / count;
    let var = uniform.iter().map(|u| (u - mean).powi(2)).sum::<f64>() / count;
    assert!((mean - 0.5).abs() < 5.0 * (1.0 / (12.0 * count)).sqrt(), "uniform mean {mean}");
    assert!((var - 1.0 / 12.0).abs() < 5.0 * (1.0 / (180.0 * count)).sqrt(), "uniform variance {var}");
}

/// `manual_seed(s)` restarts the global stream at the same place as an explicit seed `s`, and the
/// global stream continues where the previous call stopped.
pub fn check_global_stream() {
    let seeded = Tensor::randn(&[2 * COUNT], DType::F32, Some(42)).unwrap().to_f64_vec();
    manual_seed(42);
    let first = Tensor::randn(&[COUNT], DType::F32, None).unwrap().to_f64_vec();
    let second = Tensor::randn(&[COUNT], DType::F32, None).unwrap().to_f64_vec();
    assert_eq!([first, second].concat(), seeded);
}
