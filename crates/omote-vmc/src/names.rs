//! Expression names on the wire. VMC marionettes built on UniVRM 0.x look blend shape
//! clips up by their VRM 0.x preset names (`A`, `Joy`, `Blink_L`, …); VRM 1.0-based ones use
//! the 1.0 names (`aa`, `happy`, `blinkLeft`, …). Custom channels keep their own names.
//! ARKit's 52 are perfect-sync clips: a VRM 0.x model names them in upper camel case
//! (`JawOpen`, `EyeBlinkLeft`: VMagicMirror's and the common perfect-sync models'
//! spelling), a VRM 1.0 one as ARKit does (`jawOpen`); the names are matched exactly.

use omote_core::ExpressionPreset;

/// Which preset names to send.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BlendNames {
    /// VRM 0.x clip names (`A I U E O Blink Joy Angry Sorrow Fun …`): what most VMC
    /// receivers (VSeeFace, VMagicMirror, EVMC4U on VRM 0.x) expect. The default.
    #[default]
    Vrm0,
    /// VRM 1.0 expression names, unchanged.
    Vrm1,
}

/// Which expression weights to send: a receiver that applies the VRM 1.0 override rules
/// itself needs the weights before them, one that does not needs what the face shows.
/// The codec sends whatever slice it is given; this is the choice, made where the
/// weights are picked ([`BlendWeights::pick`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlendWeights {
    /// After the override rules, what the face shows (`FaceState::expressions`, an
    /// anim's `appliedExpressions`): for VRM 0.x models, which have no override rules.
    Applied,
    /// Before the override rules, a VRM player's input (`FaceState::input_expressions`,
    /// an anim's `expressions`): for VRM 1.0 models, whose runtime applies the rules;
    /// sent the applied weights, it would damp `blend`-overridden blinks and vowels twice.
    Input,
}

impl BlendWeights {
    /// What a receiver addressed with these names has: 0.x names → a VRM 0.x model →
    /// [`Applied`](Self::Applied); 1.0 names → a VRM 1.0 model → [`Input`](Self::Input).
    ///
    /// ```
    /// use omote_vmc::{BlendNames, BlendWeights};
    /// assert_eq!(BlendWeights::for_names(BlendNames::Vrm0), BlendWeights::Applied);
    /// assert_eq!(BlendWeights::for_names(BlendNames::Vrm1), BlendWeights::Input);
    /// ```
    pub fn for_names(names: BlendNames) -> Self {
        match names {
            BlendNames::Vrm0 => Self::Applied,
            BlendNames::Vrm1 => Self::Input,
        }
    }

    /// The one of the two that this choice sends.
    ///
    /// ```
    /// use omote_vmc::BlendWeights;
    /// let (applied, input) = ([0.4f32], [1.0f32]); // a blink under happy 0.6 (blend)
    /// assert_eq!(BlendWeights::Applied.pick(&applied[..], &input[..]), &[0.4]);
    /// assert_eq!(BlendWeights::Input.pick(&applied[..], &input[..]), &[1.0]);
    /// ```
    pub fn pick<'a, T: ?Sized>(self, applied: &'a T, input: &'a T) -> &'a T {
        match self {
            Self::Applied => applied,
            Self::Input => input,
        }
    }
}

/// (VRM 1.0 preset, VRM 0.x clip name). `surprised` has no 0.x preset; `Surprised` is the
/// custom clip name 0.x models use for it.
const PRESET_V0: [(ExpressionPreset, &str); 18] = [
    (ExpressionPreset::Neutral, "Neutral"),
    (ExpressionPreset::Aa, "A"),
    (ExpressionPreset::Ih, "I"),
    (ExpressionPreset::Ou, "U"),
    (ExpressionPreset::Ee, "E"),
    (ExpressionPreset::Oh, "O"),
    (ExpressionPreset::Blink, "Blink"),
    (ExpressionPreset::BlinkLeft, "Blink_L"),
    (ExpressionPreset::BlinkRight, "Blink_R"),
    (ExpressionPreset::Happy, "Joy"),
    (ExpressionPreset::Angry, "Angry"),
    (ExpressionPreset::Sad, "Sorrow"),
    (ExpressionPreset::Relaxed, "Fun"),
    (ExpressionPreset::Surprised, "Surprised"),
    (ExpressionPreset::LookUp, "LookUp"),
    (ExpressionPreset::LookDown, "LookDown"),
    (ExpressionPreset::LookLeft, "LookLeft"),
    (ExpressionPreset::LookRight, "LookRight"),
];

/// The VRM 0.x clip name of a VRM 1.0 preset channel, if it is one.
fn v0_preset(channel: &str) -> Option<&'static str> {
    PRESET_V0
        .iter()
        .find(|(p, _)| p.name() == channel)
        .map(|(_, v0)| *v0)
}

impl BlendNames {
    /// The name to send for an omote channel (VRM 1.0 / custom name). A channel named
    /// in ARKit's spelling goes in the 0.x perfect-sync spelling with 0.x names; a model
    /// that spells its clips otherwise has its own channel names, sent as they are.
    ///
    /// ```
    /// use omote_vmc::BlendNames;
    /// assert_eq!(BlendNames::Vrm0.to_wire("happy"), "Joy");
    /// assert_eq!(BlendNames::Vrm1.to_wire("happy"), "happy");
    /// assert_eq!(BlendNames::Vrm0.to_wire("jawOpen"), "JawOpen");
    /// assert_eq!(BlendNames::Vrm1.to_wire("jawOpen"), "jawOpen");
    /// assert_eq!(BlendNames::Vrm0.to_wire("JawOpen"), "JawOpen");
    /// assert_eq!(BlendNames::Vrm0.to_wire("myShape"), "myShape");
    /// ```
    pub fn to_wire(self, channel: &str) -> std::borrow::Cow<'_, str> {
        use std::borrow::Cow;
        if self == BlendNames::Vrm0 && omote_core::rig::is_arkit_name(channel) {
            let mut chars = channel.chars();
            let first = chars.next().map(|c| c.to_ascii_uppercase());
            return Cow::Owned(first.into_iter().chain(chars).collect());
        }
        Cow::Borrowed(self.preset_to_wire(channel))
    }

    /// [`BlendNames::to_wire`] for presets only; every other channel as it is named (a
    /// VRM 0.x model's own clip names, which its receiver spells the same).
    ///
    /// ```
    /// use omote_vmc::BlendNames;
    /// assert_eq!(BlendNames::Vrm0.preset_to_wire("happy"), "Joy");
    /// assert_eq!(BlendNames::Vrm0.preset_to_wire("jawOpen"), "jawOpen");
    /// ```
    pub fn preset_to_wire(self, channel: &str) -> &str {
        match self {
            BlendNames::Vrm1 => channel,
            BlendNames::Vrm0 => v0_preset(channel).unwrap_or(channel),
        }
    }
}

/// The omote channel name for a received blend name: VRM 0.x preset names (any case, as
/// receivers disagree) become VRM 1.0 names, ARKit's 52 in any of their spellings
/// (`JawOpen`, `jawOpen`, `eyeBlink_L`) ARKit's own (the inverse of
/// [`BlendNames::to_wire`]); everything else is kept.
///
/// ```
/// use omote_vmc::channel_from_wire;
/// assert_eq!(channel_from_wire("Joy"), "happy");
/// assert_eq!(channel_from_wire("BLINK_L"), "blinkLeft");
/// assert_eq!(channel_from_wire("aa"), "aa");
/// assert_eq!(channel_from_wire("mouthSmileLeft"), "mouthSmileLeft");
/// assert_eq!(channel_from_wire("MouthSmileLeft"), "mouthSmileLeft");
/// assert_eq!(channel_from_wire("myShape"), "myShape");
/// ```
pub fn channel_from_wire(name: &str) -> &str {
    if let Some((p, _)) = PRESET_V0
        .iter()
        .find(|(_, v0)| v0.eq_ignore_ascii_case(name))
    {
        return p.name();
    }
    omote_core::rig::arkit_index_any_spelling(name).map_or(name, |i| omote_core::rig::ARKIT_52[i])
}
