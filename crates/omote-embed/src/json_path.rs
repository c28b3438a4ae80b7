//! Which field of a JSON text a position is in: the browser package reads settings with
//! serde_json alone (the field-naming reader the native builds use is 10 KB of its
//! budget), whose errors give a line and a column; this turns them into the field's
//! path (`smoothing.eyes`, `emotions[1].sources`), as the native errors name it. Kept
//! small for that budget: keys are ranges of the text, not copies.

/// The path of the field at `line`/`column` (1-based, as serde_json reports them; the
/// column in bytes) of `text`: the keys and indices of the values that hold that place.
/// At a container's closing bracket (a field missing from it) the path is the
/// container's; in a key (a field it does not know) it is the key's object's. Empty at
/// the top level or when the place is not in the text.
pub(crate) fn json_path_at(text: &str, line: usize, column: usize) -> String {
    let bytes = text.as_bytes();
    // Where the line starts: after its (line - 1)th newline.
    let mut at = 0;
    let mut newlines = 1;
    while newlines < line && at < bytes.len() {
        if bytes[at] == b'\n' {
            newlines += 1;
        }
        at += 1;
    }
    at += column.saturating_sub(1);
    if newlines < line || at >= bytes.len() {
        return String::new();
    }
    // Each open container: an object's key (its range in the text) once its `:` is
    // read, or an array's index (a key range of `usize::MAX..n`). Settings nest a few
    // levels; deeper ones are not named (a fixed stack: this is in the browser's wasm).
    const NONE: (usize, usize) = (0, 0);
    let mut stack = [NONE; 16];
    let mut depth = 0;
    let mut pending = NONE;
    let mut i = 0;
    while i < at {
        let top = depth.min(stack.len()).checked_sub(1).map(|d| &mut stack[d]);
        match bytes[i] {
            b'"' => {
                let start = i + 1;
                i = start;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                if top.is_some_and(|t| *t == NONE) {
                    pending = (start, i.min(bytes.len()));
                }
            }
            b'{' | b'[' => {
                if let Some(slot) = stack.get_mut(depth) {
                    *slot = if bytes[i] == b'{' {
                        NONE
                    } else {
                        (usize::MAX, 0)
                    };
                }
                depth += 1;
            }
            b'}' | b']' => depth = depth.saturating_sub(1),
            b':' => {
                if let Some(t) = top
                    && *t == NONE
                {
                    *t = std::mem::replace(&mut pending, NONE);
                }
            }
            b',' => match top {
                Some((usize::MAX, n)) => *n += 1,
                Some(t) => *t = NONE,
                None => {}
            },
            _ => {}
        }
        i += 1;
    }
    let open = &mut stack[..depth.min(16)];
    // At a closing bracket the place is the container itself, not its last field.
    if matches!(bytes[at], b'}' | b']')
        && let Some(top) = open.last_mut()
        && top.0 != usize::MAX
    {
        *top = NONE;
    }
    let mut path = String::new();
    for &(start, end) in open.iter().take_while(|&&k| k != NONE) {
        if start == usize::MAX {
            path.push('[');
            path.push_str(&end.to_string());
            path.push(']');
        } else {
            if !path.is_empty() {
                path.push('.');
            }
            path.push_str(text.get(start..end).unwrap_or(""));
        }
    }
    path
}

#[cfg(test)]
mod tests {
    use super::json_path_at;
    use omote_core::RetargetConfig;

    /// serde_json's own positions in tracking settings, read back to the field.
    fn path_of_error(json: &str) -> String {
        let e = serde_json::from_str::<RetargetConfig>(json).unwrap_err();
        json_path_at(json, e.line(), e.column())
    }

    #[test]
    fn serde_jsons_positions_name_the_field() {
        assert_eq!(path_of_error(r#"{"mirror": "yes"}"#), "mirror");
        assert_eq!(
            path_of_error(r#"{"mirror": true, "smoothing": {"eyes": "x", "mouth": 1}}"#),
            "smoothing.eyes"
        );
        // A field missing from an object: the object.
        assert_eq!(
            path_of_error(r#"{"headFilter": {"minCutoff": 1, "beta": 0.1}}"#),
            "headFilter"
        );
        // An unknown key: the object it is in (serde's message names the key).
        assert_eq!(
            path_of_error(r#"{"smoothing": {"eyez": 0.1}}"#),
            "smoothing"
        );
        assert_eq!(path_of_error(r#"{"mirrorr": true}"#), "");
        let rules = "{\n  \"emotions\": [\n    {\"target\": \"happy\", \"sources\": [\"mouthSmileLeft\"], \"from\": 0.1, \"to\": 0.5},\n    {\"target\": \"sad\", \"sources\": 3}\n  ]\n}";
        assert_eq!(path_of_error(rules), "emotions[1].sources");
        assert_eq!(
            path_of_error(r#"{"smoothing": {"eyes": 1}, "limits": {"yawDeg": [1]}}"#),
            "limits.yawDeg"
        );
        // Escapes and brackets inside strings do not lose the place.
        assert_eq!(
            path_of_error(r#"{"emotions": [{"target": "}\"{[", "sources": {}}]}"#),
            "emotions[0].sources"
        );
        assert_eq!(json_path_at("{}", 9, 1), "");
        assert_eq!(json_path_at("{}", 1, 99), "");
    }
}
