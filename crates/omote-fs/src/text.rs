//! Text from files and the network, safe to echo: the one function every message that
//! quotes such a name goes through. It lives here because every crate that reads a file
//! (and the CLI, which prints what the network sends) depends on this crate.

use std::borrow::Cow;
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
    echo_at_most(text, ECHO_CHARS)
}

/// [`echo`] with its own cap: at most `max_chars` characters shown (an error message,
/// which may quote a name and a file, gets more room than a bare name).
pub fn echo_at_most(text: &str, max_chars: usize) -> String {
    let mut out = String::with_capacity(text.len().min(max_chars * 2) + 24);
    for (shown, (at, c)) in text.char_indices().enumerate() {
        if shown == max_chars {
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

/// `text` of our own making that may quote names (a report, a summary) safe for a
/// terminal: its line feeds and tabs stay, every other control character is escaped as
/// [`echo`] escapes it; nothing is cut.
pub fn escape_terminal(text: &str) -> Cow<'_, str> {
    let unsafe_here = |c: char| unsafe_char(c) && c != '\n' && c != '\t';
    if !text.chars().any(unsafe_here) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if unsafe_here(c) {
            out.extend(c.escape_unicode());
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
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
    fn terminal_text_keeps_its_lines_and_escapes_the_rest() {
        assert_eq!(escape_terminal("plain\tname\n"), "plain\tname\n");
        let shown = escape_terminal("a\u{1b}[31m\rb\u{202e}\n");
        assert_eq!(shown, "a\\u{1b}[31m\\u{d}b\\u{202e}\n");
        assert_eq!(echo_at_most("abcdef", 3), "abc… (3 more bytes)");
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
