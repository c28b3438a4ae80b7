//! A press script written as a query (`advance=T1,T2&skip=T3`), as the scene viewer's
//! page asks for a bake: parsed strictly, every time bounded, before any work.

/// The press script of a bake query: `advance=T1,T2&skip=T3`, each key at most once,
/// times plain decimals (`12`, `4.25`) from 0 to `max_t`, at most `max_presses` each.
/// The errors are meant for the asker (an HTTP 400): they quote what was sent, escaped.
pub fn parse_press_query(
    query: &str,
    max_t: f64,
    max_presses: usize,
) -> Result<(Vec<f64>, Vec<f64>), String> {
    let mut advances: Option<Vec<f64>> = None;
    let mut skips: Option<Vec<f64>> = None;
    for pair in query.split('&') {
        let (key, value) = pair
            .split_once('=')
            .ok_or_else(|| format!("`{}` is not key=value", quote(pair)))?;
        let slot = match key {
            "advance" => &mut advances,
            "skip" => &mut skips,
            _ => {
                return Err(format!(
                    "unknown parameter `{}` (advance, skip)",
                    quote(key)
                ));
            }
        };
        if slot.is_some() {
            return Err(format!("`{key}` is given twice"));
        }
        let mut times = Vec::new();
        for item in value.split(',').filter(|s| !s.is_empty()) {
            if times.len() == max_presses {
                return Err(format!("more than {max_presses} {key} times"));
            }
            times.push(parse_time(item, max_t).map_err(|e| format!("{key}: {e}"))?);
        }
        *slot = Some(times);
    }
    Ok((advances.unwrap_or_default(), skips.unwrap_or_default()))
}

/// What was sent, for an error: control characters escaped, at most 40 characters.
fn quote(s: &str) -> String {
    let mut out: String = s.chars().take(40).flat_map(char::escape_debug).collect();
    if s.chars().nth(40).is_some() {
        out.push('…');
    }
    out
}

/// A time in seconds written as plain digits with an optional fraction.
fn parse_time(s: &str, max_t: f64) -> Result<f64, String> {
    let (int, frac) = s.split_once('.').unwrap_or((s, ""));
    let digits = |p: &str| p.bytes().all(|b| b.is_ascii_digit());
    let fraction_ok = !s.contains('.') || (1..=9).contains(&frac.len());
    if !((1..=7).contains(&int.len()) && digits(int) && digits(frac) && fraction_ok) {
        return Err(format!(
            "`{}` is not a time in seconds (digits, an optional fraction)",
            quote(s)
        ));
    }
    let t: f64 = s.parse().map_err(|_| format!("`{s}` is not a number"))?;
    if t > max_t {
        return Err(format!(
            "{t} s is past the end of what can be baked ({max_t:.1} s)"
        ));
    }
    Ok(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn press_queries_are_parsed_strictly() {
        const M: usize = 256;
        assert_eq!(
            parse_press_query("advance=1.5,3&skip=2", 100.0, M),
            Ok((vec![1.5, 3.0], vec![2.0]))
        );
        assert_eq!(
            parse_press_query("skip=0", 100.0, M),
            Ok((vec![], vec![0.0]))
        );
        assert_eq!(
            parse_press_query("advance=", 100.0, M),
            Ok((vec![], vec![]))
        );
        for bad in [
            "advance=1&advance=2",
            "advance=-1",
            "advance=1e3",
            "advance=NaN",
            "advance=inf",
            "advance=1.",
            "advance=.5",
            "advance=+1",
            "advance=1%2C2",
            "advance= 1",
            "advance=101",
            "next=1",
            "advance",
            "advance=1&",
        ] {
            assert!(parse_press_query(bad, 100.0, M).is_err(), "{bad}");
        }
        let long = format!("advance={}", "x".repeat(10_000));
        let err = parse_press_query(&long, 100.0, M).unwrap_err();
        assert!(err.len() < 200, "{err}");
        let many = vec!["1"; M + 1].join(",");
        assert!(parse_press_query(&format!("skip={many}"), 100.0, M).is_err());
        let enough = vec!["1"; M].join(",");
        assert!(parse_press_query(&format!("skip={enough}"), 100.0, M).is_ok());
    }
}
