//! A profile's fixed-length arrays read from JSON through `Vec`: serde's own reader for
//! `[T; N]` is unrolled per length and element type, and the profile's five shapes of it
//! were about 11 KB of the browser package's code. Same JSON, same values; a wrong length
//! is "invalid length 11, expected 12 numbers".

use serde::de::{Deserialize, Deserializer, Error};

/// `[T; N]` from a JSON array of exactly `N` items.
pub(crate) fn array<'de, D, T, const N: usize>(d: D) -> Result<[T; N], D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    exact(Vec::<T>::deserialize(d)?)
}

/// `[[f32; N]; M]` from a JSON array of `M` arrays of `N` numbers.
pub(crate) fn matrix<'de, D, const N: usize, const M: usize>(
    d: D,
) -> Result<[[f32; N]; M], D::Error>
where
    D: Deserializer<'de>,
{
    let rows: Vec<Vec<f32>> = Vec::deserialize(d)?;
    let rows: Vec<[f32; N]> = rows.into_iter().map(exact).collect::<Result<_, _>>()?;
    exact(rows)
}

fn exact<T, E: Error, const N: usize>(items: Vec<T>) -> Result<[T; N], E> {
    let len = items.len();
    items
        .try_into()
        .map_err(|_| E::invalid_length(len, &format!("{N} numbers").as_str()))
}

#[cfg(test)]
mod tests {
    #[derive(serde::Deserialize, Debug, PartialEq)]
    struct Shapes {
        #[serde(deserialize_with = "super::array")]
        row: [u64; 3],
        #[serde(deserialize_with = "super::matrix")]
        rows: [[f32; 2]; 2],
    }

    #[test]
    fn arrays_read_as_serde_reads_them_and_wrong_lengths_are_named() {
        let s: Shapes =
            serde_json::from_str(r#"{"row": [1, 2, 3], "rows": [[1, 2], [3, 4.5]]}"#).unwrap();
        assert_eq!(s.row, [1, 2, 3]);
        assert_eq!(s.rows, [[1.0, 2.0], [3.0, 4.5]]);
        let e = serde_json::from_str::<Shapes>(r#"{"row": [1, 2], "rows": [[1, 2], [3, 4]]}"#)
            .unwrap_err();
        assert!(
            e.to_string()
                .contains("invalid length 2, expected 3 numbers"),
            "{e}"
        );
        let e = serde_json::from_str::<Shapes>(r#"{"row": [1, 2, 3], "rows": [[1, 2], [3]]}"#)
            .unwrap_err();
        assert!(
            e.to_string()
                .contains("invalid length 1, expected 2 numbers"),
            "{e}"
        );
        let e =
            serde_json::from_str::<Shapes>(r#"{"row": [1, 2, 3], "rows": [[1, 2]]}"#).unwrap_err();
        assert!(
            e.to_string()
                .contains("invalid length 1, expected 2 numbers"),
            "{e}"
        );
    }
}
