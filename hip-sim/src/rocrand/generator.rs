//! Generators: creating and destroying them, their stream, seed, offset
//! and ordering, and the words they produce.

use super::engines::{Engines, Launch, Widths};
use super::OBJECTS;
use super::{philox, poisson};
use crate::bindings::rocrand::*;
use crate::library::{call, write_out};
use crate::machine::violations;
use std::sync::Arc;

pub(super) type Status = rocrand_status;
pub(super) const OK: Status = rocrand_status::ROCRAND_STATUS_SUCCESS;
pub(super) const INTERNAL: Status = rocrand_status::ROCRAND_STATUS_INTERNAL_ERROR;
pub(super) const NOT_CREATED: Status = rocrand_status::ROCRAND_STATUS_NOT_CREATED;

/// The version the simulator reports: rocRAND 2.10.17 (ROCm 5.7.1), as
/// `major * 100000 + minor * 100 + patch`.
const VERSION: i32 = 201_017;

/// The generators the simulator models.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Engine {
    Philox,
    Xorwow,
    Mrg32k3a,
}

/// A simulated rocRAND generator.
#[derive(Clone)]
pub(crate) struct Generator {
    pub(super) engine: Engine,
    /// The stream its work is queued on (0: the device's null stream).
    pub stream: usize,
    seed: u64,
    offset: u64,
    /// Philox's words produced since the stream last restarted at
    /// `offset`.
    consumed: u64,
    /// Where XORWOW's and MRG32k3a's engines stand, once their state is
    /// made.
    engines: Option<Engines>,
    /// The Poisson table of the last `lambda`, which rocRAND keeps until
    /// a generate asks for another (seeds and offsets leave it).
    poisson: Option<(f64, Arc<poisson::Table>)>,
    /// Whether the state was made since the generator was made or its
    /// seed or offset changed (`rocrand_initialize_generator`, or a
    /// generate, which makes it first).
    pub initialized: bool,
}

impl Generator {
    /// The next `words` words of Philox's stream, which then moves past
    /// them.
    pub(super) fn take(&mut self, words: u64) -> Words {
        let words = Words { seed: self.seed, first: self.offset + self.consumed, len: words };
        self.consumed += words.len;
        words
    }

    /// Enqueue a generate of `n` values on XORWOW's or MRG32k3a's engines
    /// (see `engines`), `misalignment` elements short of a vector, and
    /// move them on. `None` before their state is made.
    pub(super) fn launch(&mut self, n: usize, misalignment: usize, widths: Widths) -> Option<Launch> {
        let seed = self.seed;
        self.engines.as_mut().map(|engines| engines.launch(seed, n, misalignment, widths))
    }

    /// The Poisson table it keeps, if it is `lambda`'s.
    pub(super) fn poisson_table(&self, lambda: f64) -> Option<Arc<poisson::Table>> {
        self.poisson.as_ref().filter(|(kept, _)| *kept == lambda).map(|(_, table)| table.clone())
    }

    /// Keep `table`, `lambda`'s, in place of the last one.
    pub(super) fn keep_poisson_table(&mut self, lambda: f64, table: Arc<poisson::Table>) {
        self.poisson = Some((lambda, table));
    }
}

/// A run of Philox's words, computed when the work runs.
pub(super) struct Words {
    seed: u64,
    first: u64,
    len: u64,
}

impl Words {
    /// Every word of the run, in order.
    pub fn all(&self) -> Vec<u32> {
        let key = philox::key(self.seed);
        let mut out = Vec::with_capacity(self.len as usize);
        let mut position = self.first;
        let end = self.first + self.len;
        while position < end {
            let block = philox::block(philox::counter(u128::from(position / 4)), key);
            let start = (position % 4) as usize;
            let take = (4 - start).min((end - position) as usize);
            out.extend_from_slice(&block[start..start + take]);
            position += take as u64;
        }
        out
    }
}

/// The device of `generator`, recording a violation if another is current.
pub(super) fn generator_device(function: &'static str, generator: rocrand_generator) -> Result<usize, Status> {
    let device = OBJECTS.with(generator as usize, |o| o.device).ok_or(NOT_CREATED)?;
    violations::check(function, device);
    Ok(device)
}

/// Run `f` on `generator`'s state.
pub(super) fn with_generator<R>(
    generator: rocrand_generator,
    f: impl FnOnce(&mut Generator) -> R,
) -> Result<R, Status> {
    OBJECTS.with(generator as usize, |o| f(&mut o.kind)).ok_or(NOT_CREATED)
}

pub(crate) unsafe extern "C" fn rocrand_get_version(version: *mut i32) -> Status {
    call("rocrand_get_version", OK, INTERNAL, || {
        // SAFETY: null is refused; otherwise valid per the C contract.
        unsafe { write_out(version, VERSION, rocrand_status::ROCRAND_STATUS_OUT_OF_RANGE) }
    })
}

pub(crate) unsafe extern "C" fn rocrand_create_generator(
    generator: *mut rocrand_generator,
    rng_type: rocrand_rng_type,
) -> Status {
    call("rocrand_create_generator", OK, INTERNAL, || {
        let engine = match rng_type {
            rocrand_rng_type::ROCRAND_RNG_PSEUDO_PHILOX4_32_10 => Engine::Philox,
            // rocRAND's default pseudo-random generator is XORWOW.
            rocrand_rng_type::ROCRAND_RNG_PSEUDO_XORWOW | rocrand_rng_type::ROCRAND_RNG_PSEUDO_DEFAULT => {
                Engine::Xorwow
            }
            rocrand_rng_type::ROCRAND_RNG_PSEUDO_MRG32K3A => Engine::Mrg32k3a,
            _ => {
                log::error!(
                    "hip simulator: rocRAND generator type {} is not modelled (Philox4x32-10, XORWOW and MRG32k3a are)",
                    rng_type.0
                );
                return Err(rocrand_status::ROCRAND_STATUS_TYPE_ERROR);
            }
        };
        if generator.is_null() {
            return Err(NOT_CREATED);
        }
        // The C API's Philox generator starts at seed 0 (its constructor's
        // default), not at ROCRAND_PHILOX4x32_DEFAULT_SEED.
        let made = OBJECTS.insert(Generator {
            engine,
            stream: 0,
            seed: 0,
            offset: 0,
            consumed: 0,
            engines: None,
            poisson: None,
            initialized: false,
        });
        // SAFETY: checked non-null; valid per the C contract.
        unsafe { write_out(generator, made as rocrand_generator, NOT_CREATED) }
    })
}

pub(crate) unsafe extern "C" fn rocrand_destroy_generator(generator: rocrand_generator) -> Status {
    call("rocrand_destroy_generator", OK, INTERNAL, || {
        let object = OBJECTS.remove_if(generator as usize, |_| true).ok_or(NOT_CREATED)?;
        violations::check("rocrand_destroy_generator", object.device);
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn rocrand_set_stream(
    generator: rocrand_generator,
    stream: crate::bindings::hip::hipStream_t,
) -> Status {
    call("rocrand_set_stream", OK, INTERNAL, || {
        generator_device("rocrand_set_stream", generator)?;
        with_generator(generator, |g| g.stream = stream as usize)
    })
}

/// Change what `generator`'s stream starts from (`set`) and restart it
/// there: rocRAND makes the state again at the next generate.
fn restart(function: &'static str, generator: rocrand_generator, set: impl FnOnce(&mut Generator)) -> Status {
    call(function, OK, INTERNAL, || {
        generator_device(function, generator)?;
        with_generator(generator, |g| {
            set(g);
            g.consumed = 0;
            g.initialized = false;
        })
    })
}

pub(crate) unsafe extern "C" fn rocrand_set_seed(generator: rocrand_generator, seed: u64) -> Status {
    restart("rocrand_set_seed", generator, |g| g.seed = seed)
}

pub(crate) unsafe extern "C" fn rocrand_set_offset(generator: rocrand_generator, offset: u64) -> Status {
    restart("rocrand_set_offset", generator, |g| g.offset = offset)
}

pub(crate) unsafe extern "C" fn rocrand_set_ordering(generator: rocrand_generator, order: rocrand_ordering) -> Status {
    call("rocrand_set_ordering", OK, INTERNAL, || {
        generator_device("rocrand_set_ordering", generator)?;
        // A pseudo-random generator takes the pseudo orderings; Philox's
        // output does not depend on which.
        match order.0 {
            100..=104 => Ok(()),
            _ => Err(rocrand_status::ROCRAND_STATUS_OUT_OF_RANGE),
        }
    })
}

pub(crate) unsafe extern "C" fn rocrand_initialize_generator(generator: rocrand_generator) -> Status {
    call("rocrand_initialize_generator", OK, INTERNAL, || {
        generator_device("rocrand_initialize_generator", generator)?;
        initialize(generator)
    })
}

/// Make `generator`'s state if it has none. It is refused, as the device
/// allocation cuRAND makes then (and rocRAND's generators with device
/// state) would be, during a capture the calling thread may not allocate
/// in: the simulator holds every backend to the strictest one.
pub(super) fn initialize(generator: rocrand_generator) -> Result<(), Status> {
    if with_generator(generator, |g| g.initialized)? {
        return Ok(());
    }
    crate::machine::capture::check_allocation().map_err(|_| rocrand_status::ROCRAND_STATUS_ALLOCATION_FAILED)?;
    with_generator(generator, |g| {
        g.initialized = true;
        // `init_engines_kernel`: every engine seeded at the offset.
        g.engines = (g.engine != Engine::Philox).then(|| Engines::at_offset(g.offset));
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A new Philox generator at `seed` and `offset`.
    fn philox(seed: u64, offset: u64) -> Generator {
        Generator {
            engine: Engine::Philox,
            stream: 0,
            seed,
            offset,
            consumed: 0,
            engines: None,
            poisson: None,
            initialized: false,
        }
    }

    fn words(seed: u64, offset: u64, len: u64) -> Vec<u32> {
        philox(seed, offset).take(len).all()
    }

    /// rocRAND 5.7's host API, run on the CPU: the first words for seed 0
    /// (the C API's default) and for 0xdeadbeefdeadbeef.
    #[test]
    fn the_host_api_stream_of_rocrand_5_7() {
        let seed0 = [
            0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8, 0xf8e4cca4, 0x5cb200db, 0xb1a574eb, 0x097eff67, 0x04faa329,
            0x51c732a6, 0x241513ad, 0x459135e4,
        ];
        assert_eq!(words(0, 0, 12), seed0);
        let beef = [
            0xda5c487b, 0x89ca764f, 0x45d09968, 0x70458958, 0x22fac378, 0x05d6bfb0, 0x18d4d95e, 0xb297a08c, 0x9f2086bd,
            0xf1680a31, 0x91b4dd17, 0x72b4ce73,
        ];
        assert_eq!(words(philox::DEFAULT_SEED, 0, 12), beef);
        assert_eq!(words(12345, 0, 4), [0xd1fa3e81, 0x2f7fea51, 0xd2ca9611, 0xe328bbe0]);
    }

    /// An offset that is not a multiple of four, and two calls in a row.
    #[test]
    fn offsets_count_words_and_calls_continue() {
        let mut g = philox(0, 5);
        assert_eq!(g.take(3).all(), [0x5cb200db, 0xb1a574eb, 0x097eff67]);
        assert_eq!(g.take(3).all(), [0x04faa329, 0x51c732a6, 0x241513ad]);
    }
}
