//! Text from files and the network, safe to echo: the one function every message that
//! quotes such a name goes through. It lives here because every crate that reads a file
//! (and the CLI, which prints what the network sends) depends on this crate.

use std::fmt::Write;

/// The most characters of a quoted name [`echo`] shows.
pub const ECHO_CHARS: usize = 200;

/// Whether `c` must not reach a terminal raw: control characters (line feeds, carriage
/// returns, escapes, bells) and the bidirectional-text controls that reorder what shows.
fn unsafe_char(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}' | '\u{61c}')
}

/// `text` (a name from a file or the network) as one short, safe line for a message:
/// every control character escaped (`\n`, `\u{1b}`), and at most [`ECHO_CHARS`]
/// characters shown, then `… (N more bytes)`.
///
/// ```
/// assert_eq!(omote_fs::echo("Aoi\nerror: forged"), "Aoi\\nerror: forged");
/// let long = "x".repeat(1000);
/// assert_eq!(omote_fs::echo(&long), format!("{}… (800 more bytes)", "x".repeat(200)));
/// ```
pub fn echo(text: &str) -> String {
    let mut out = String::with_capacity(text.len().min(ECHO_CHARS * 2) + 24);
    for (shown, (at, c)) in text.char_indices().enumerate() {
        if shown == ECHO_CHARS {
            let _ = write!(out, "… ({} more bytes)", text.len() - at);
            break;
        }
        match c {
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if unsafe_char(c) => out.extend(c.escape_unicode()),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_control_character_is_escaped() {
        let shown = echo("ok\u{1b}]0;pwned\u{7}\r\n\t\u{202e}cba");
        assert!(!shown.chars().any(unsafe_char), "{shown}");
        assert_eq!(shown, "ok\\u{1b}]0;pwned\\u{7}\\r\\n\\t\\u{202e}cba");
        assert_eq!(echo("plain name"), "plain name");
    }

    #[test]
    fn a_long_name_is_one_short_line() {
        // 50 MB with line feeds: the first 200 characters, then how much was left out.
        let long = "ab\n".repeat(50 * 1024 * 1024 / 3);
        let shown = echo(&long);
        assert!(!shown.contains('\n'));
        assert!(shown.len() < 400, "{} bytes", shown.len());
        assert!(shown.ends_with(" more bytes)"), "{shown}");
        // Multi-byte characters are never cut.
        let kana = "あ".repeat(300);
        let shown = echo(&kana);
        assert!(shown.starts_with(&"あ".repeat(200)));
        assert!(shown.ends_with("… (300 more bytes)"), "{shown}");
    }
}
