//! Handles: what C holds instead of pointers. A handle is a 64-bit number — its kind,
//! a slot and the slot's generation — looked up in a table per kind, so a zero, freed,
//! foreign or wrong-kind handle, and a second free, are errors with a message rather
//! than undefined behaviour. Each object sits behind its own lock: a handle used from
//! two threads at once is serialised, never raced (the contract is still one thread at
//! a time; the lock only makes a broken contract safe).

use std::sync::{Arc, Mutex, MutexGuard, RwLock};

use crate::status::{FfiError, FfiResult, OmoteStatus};

/// The kinds of object behind handles (the top byte of a handle).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum Kind {
    Avatar = 0xA1,
    Character = 0xA2,
    Track = 0xA3,
    Speaker = 0xA4,
    VoiceStream = 0xA5,
    Scene = 0xA6,
    Anims = 0xA7,
    VoiceFile = 0xA8,
}

impl Kind {
    const ALL: [Kind; 8] = [
        Kind::Avatar,
        Kind::Character,
        Kind::Track,
        Kind::Speaker,
        Kind::VoiceStream,
        Kind::Scene,
        Kind::Anims,
        Kind::VoiceFile,
    ];

    fn name(self) -> &'static str {
        match self {
            Kind::Avatar => "an avatar",
            Kind::Character => "a character",
            Kind::Track => "a track",
            Kind::Speaker => "a speaker",
            Kind::VoiceStream => "a voice stream",
            Kind::Scene => "a scene",
            Kind::Anims => "anims",
            Kind::VoiceFile => "a voice file",
        }
    }
}

/// A slot's generation wraps at 24 bits; a slot whose generation is used up is retired.
const GENERATION_MASK: u32 = 0x00FF_FFFF;

struct Slot<T> {
    generation: u32,
    value: Option<Arc<Mutex<T>>>,
}

struct Table<T> {
    slots: Vec<Slot<T>>,
    free: Vec<u32>,
}

/// One kind's objects.
pub(crate) struct Registry<T> {
    kind: Kind,
    table: RwLock<Table<T>>,
}

/// A live object, locked for the call.
pub(crate) struct Held<T> {
    object: Arc<Mutex<T>>,
}

impl<T> Held<T> {
    pub fn lock(&self, what: &str) -> FfiResult<MutexGuard<'_, T>> {
        self.object.lock().map_err(|_| {
            FfiError::new(
                OmoteStatus::Internal,
                format!("{what} was left broken by an earlier internal error; free it"),
            )
        })
    }
}

impl<T> Registry<T> {
    pub const fn new(kind: Kind) -> Self {
        Self {
            kind,
            table: RwLock::new(Table {
                slots: Vec::new(),
                free: Vec::new(),
            }),
        }
    }

    fn encode(&self, index: u32, generation: u32) -> u64 {
        (self.kind as u64) << 56 | u64::from(generation) << 32 | u64::from(index)
    }

    /// Stores `value` and returns its handle (never 0).
    pub fn insert(&self, value: T) -> u64 {
        let mut table = self.table.write().unwrap_or_else(|p| p.into_inner());
        let value = Some(Arc::new(Mutex::new(value)));
        if let Some(index) = table.free.pop() {
            let slot = &mut table.slots[index as usize];
            slot.value = value;
            return self.encode(index, slot.generation);
        }
        let index = table.slots.len() as u32;
        table.slots.push(Slot {
            generation: 1,
            value,
        });
        self.encode(index, 1)
    }

    fn locate(&self, handle: u64) -> FfiResult<(u32, u32)> {
        if handle == 0 {
            return Err(FfiError::new(
                OmoteStatus::InvalidHandle,
                format!("the handle is 0: not {}", self.kind.name()),
            ));
        }
        let tag = (handle >> 56) as u8;
        if tag != self.kind as u8 {
            let is = Kind::ALL.iter().find(|k| **k as u8 == tag);
            return Err(FfiError::new(
                OmoteStatus::InvalidHandle,
                match is {
                    Some(k) => format!(
                        "handle {handle:#x} is {}, not {}",
                        k.name(),
                        self.kind.name()
                    ),
                    None => format!("handle {handle:#x} is not a handle from omote"),
                },
            ));
        }
        Ok((handle as u32, (handle >> 32) as u32 & GENERATION_MASK))
    }

    fn stale(&self, handle: u64) -> FfiError {
        FfiError::new(
            OmoteStatus::InvalidHandle,
            format!(
                "handle {handle:#x} is not {} that is alive (freed already, or never made)",
                self.kind.name()
            ),
        )
    }

    /// The object behind `handle`.
    pub fn get(&self, handle: u64) -> FfiResult<Held<T>> {
        let (index, generation) = self.locate(handle)?;
        let table = self.table.read().unwrap_or_else(|p| p.into_inner());
        match table.slots.get(index as usize) {
            Some(Slot {
                generation: g,
                value: Some(object),
            }) if *g == generation => Ok(Held {
                object: object.clone(),
            }),
            _ => Err(self.stale(handle)),
        }
    }

    /// Frees `handle`'s object (dropped once no call holds it any more).
    pub fn remove(&self, handle: u64) -> FfiResult {
        let (index, generation) = self.locate(handle)?;
        let mut table = self.table.write().unwrap_or_else(|p| p.into_inner());
        let Some(slot) = table.slots.get_mut(index as usize) else {
            return Err(self.stale(handle));
        };
        if slot.generation != generation || slot.value.is_none() {
            return Err(self.stale(handle));
        }
        slot.value = None;
        slot.generation = (slot.generation + 1) & GENERATION_MASK;
        if slot.generation != 0 {
            table.free.push(index);
        }
        Ok(())
    }

    /// How many objects of this kind are alive (for leak checks).
    pub fn live(&self) -> u32 {
        let table = self.table.read().unwrap_or_else(|p| p.into_inner());
        table.slots.iter().filter(|s| s.value.is_some()).count() as u32
    }
}
